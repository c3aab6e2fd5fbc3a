/// The topics of Registrar's contract; what flows on each is declared once, by the flows (`Flow.all`) and the
/// announcements (`Announcements.all`). Every flow message is keyed by the id of the flow it belongs to (the
/// registration id or the client's request id), so that one flow's events stay in order on one partition; an
/// announcement, by its account's uid. The contract is documented in `contract/asyncapi.yaml`.
public enum Topic {
    /// Public input: `RegistrationRequested`, published by the CLI or any Kafka client.
    public static let registrationRequests = "registration.requests"
    /// Public output: `RegistrationCompleted` or `RegistrationFailed`, one per registration.
    public static let registrationOutcomes = "registration.outcomes"
    /// Commands to the image worker: `StoreAvatar`, `DeleteAvatar`, `EraseAvatar`, `StoreNewAvatar`, `DiscardAvatar`.
    public static let imageCommands = "image.commands"
    /// Commands to the profile worker: `WriteProfile`, `DeleteProfile`, `UpdateProfileEmail`, `EraseProfile`, `UpdateProfile`.
    public static let profileCommands = "profile.commands"
    /// Replies of the image and profile workers to the account worker, which drives the saga.
    public static let registrationReplies = "registration.replies"
    /// Public input of the code dispatch worker: `CodeRequested`.
    public static let codeRequests = "code.requests"
    /// Public output of the code dispatch worker: `CodeSent` or `CodeRefused`, one per request.
    public static let codeOutcomes = "code.outcomes"
    /// Public input of the account worker's sign-in and sessions: `TokenRequested`, `ProfileRequested`, `SignOutRequested`,
    /// `SessionsRequested`, `ExportRequested`.
    public static let authRequests = "auth.requests"
    /// Public output of sign-in: `TokenIssued`, `ProfileAnswered`, `SignedOut`, `SessionsAnswered`, `ExportAnswered` or
    /// `TokenRefused`, one per request.
    public static let authOutcomes = "auth.outcomes"
    /// Public input of account changes: `PasswordChangeRequested`, `PasswordResetRequested`, `EmailChangeRequested`,
    /// `AccountDeletionRequested`, `ProfileUpdateRequested`.
    public static let accountRequests = "account.requests"
    /// Public output of account changes: `AccountChangeCompleted`, `AccountDeleted`, `ProfileUpdated` or `AccountChangeFailed`,
    /// one per request.
    public static let accountOutcomes = "account.outcomes"
    /// Replies to the email change, deletion and profile update sagas: `ProfileEmailUpdated`, `ProfileEmailRejected`,
    /// `ProfileEmailWaiting`, `ProfileErased`, `ProfileUpdateApplied`, `ProfileUpdateRejected`, `ProfileUpdateWaiting` (profile
    /// worker), `AvatarErased`, `NewAvatarStored`, `NewAvatarRejected`, `NewAvatarWaiting`, `AvatarDiscarded` (image worker).
    public static let accountReplies = "account.replies"
    /// The operator's input: `OperatorRequested`, signed with the operator role's event key (`registrar operator`).
    public static let operatorRequests = "operator.requests"
    /// The operator's output: `OperatorAnswered` or `OperatorRefused`, one per request.
    public static let operatorOutcomes = "operator.outcomes"
    /// Public output for other services: `AccountRegistered`, `EmailVerified`, `ProfileUpdated`, `EmailChanged`,
    /// `PasswordChanged`, `AccountDeleted` and the operator's actions (``AccountEvent``), keyed by uid, from the stores' outboxes.
    public static let accountEvents = "account.events"

    /// Every topic and dead-letter topic as a cluster must hold it: the one table the local broker,
    /// `registrar topics create|check` and `contract/asyncapi.yaml` (checked by a test) follow.
    /// Flows keep 7 days, dead letters 30; partitions bound each worker type's parallelism.
    public static let all: [TopicSpec] = flows.map { TopicSpec($0, partitions: 6, retention: .days(7)) }
        + inputs.map { TopicSpec(deadLetters(of: $0), partitions: 1, retention: .days(30)) }

    /// The topics events flow on, in the table's order: each flow's topics as its declaration names them, then the
    /// announcement topics.
    static let flows = (Flow.all.flatMap { $0.messages.map(\.topic) } + Announcements.all.map(\.topic)).reduce(into: [String]()) { topics, topic in
        if !topics.contains(topic) { topics.append(topic) }
    }

    /// The topics workers consume, in the table's order: the topics of the routing table (`StepRoutes`), each of
    /// which has a dead-letter topic. (The account worker reads `registration.outcomes` too, to answer sign-ins
    /// that registered an account.)
    public static let inputs = flows.filter { topic in StepRoutes.all.contains { $0.topic == topic } }

    /// The public outcome topics: one answer per request, read by clients.
    public static let outcomes = Flow.all.map(\.outcomes.topic)

    /// Each public request topic and the outcome topic its requests are answered on.
    public static let answers = [registrationRequests: registrationOutcomes, codeRequests: codeOutcomes, authRequests: authOutcomes,
                                 accountRequests: accountOutcomes, operatorRequests: operatorOutcomes]

    /// The request topic whose requests `outcomeTopic` answers.
    public static func requests(answeredOn outcomeTopic: String) -> String? {
        answers.first { $0.value == outcomeTopic }?.key
    }

    /// How long the flows keep their messages: a request or an answer older than this is gone from its topic.
    public static var flowRetention: TopicSpec.Retention { all.first { $0.name == registrationRequests }!.retention }

    /// The dead-letter topic of `topic`: messages that could not be processed at all, with the reason.
    public static func deadLetters(of topic: String) -> String { topic + ".dlq" }
}
