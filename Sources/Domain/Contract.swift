/// The topic contract, each flow declared once: the requests a client publishes and the topic they arrive on,
/// the outcomes that answer them and their topic, the worker role that takes the requests, and the internal
/// messages between workers with the role that produces each. Every table is derived from it: the topic list
/// (`Topic.all`, `Topic.inputs`, `Topic.outcomes`, hence `contract/asyncapi.yaml`'s channels, checked by a test),
/// each event type's topic and producers (signatures, ACLs), the failure answer of a dead-lettered request, the
/// request/outcome pairing and consumer group the client uses, the answer memo's topics, and the worker names.
public struct Flow: Sendable {
    /// Event types published by `producer` (nil: a client, whose requests carry no signature; the operator role for the
    /// operator's requests) on `topic`.
    public struct Messages: Sendable {
        public var topic: String
        public var types: [Event.Kind]
        public var producer: WorkerRole?

        init(_ types: [Event.Kind], on topic: String, from producer: WorkerRole? = nil) {
            self.topic = topic
            self.types = types
            self.producer = producer
        }
    }

    public var name: String
    /// The role whose worker takes the requests: the consumer group of `requests.topic`.
    public var handler: WorkerRole
    public var requests: Messages
    /// One per request, keyed by its id, published by `handler`.
    public var outcomes: Messages
    /// The messages between workers the flow's steps exchange.
    public var internalMessages: [Messages]
    /// Whether each request's answer is kept and given again verbatim (`AnswerOnce`) rather than derived anew.
    public var isAnsweredOnce: Bool
    /// The JSON field naming a request's flow id.
    public var idField: String
    /// The outcome refusing the request `id` for `reason`, saying `message`.
    public var refusal: @Sendable (_ id: String, _ reason: ReasonCode, _ message: String) -> Event

    /// Every message of the flow: requests, outcomes, internal messages.
    public var messages: [Messages] { [requests, outcomes] + internalMessages }
}

extension Flow {
    /// Every flow, in the topic table's order.
    public static let all: [Flow] = [registration, verification, signIn, accountChanges, operatorActions]

    public static let registration = Flow(
        name: "registration", handler: .account,
        requests: Messages([.registrationRequested], on: Topic.registrationRequests),
        outcomes: Messages([.registrationCompleted, .registrationFailed], on: Topic.registrationOutcomes, from: .account),
        internalMessages: [
            Messages([.storeAvatar, .deleteAvatar], on: Topic.imageCommands, from: .account),
            Messages([.writeProfile, .deleteProfile], on: Topic.profileCommands, from: .account),
            Messages([.avatarStored, .avatarRejected, .avatarDeleted, .avatarWaiting], on: Topic.registrationReplies, from: .image),
            Messages([.profileWritten, .profileRejected, .profileDeleted, .profileWaiting], on: Topic.registrationReplies, from: .profile),
        ],
        isAnsweredOnce: false, idField: "registrationId",
        refusal: { .registrationFailed(RegistrationFailed(registrationId: $0, reason: $1, message: $2)) })

    public static let verification = Flow(
        name: "verification", handler: .codeDispatch,
        requests: Messages([.codeRequested], on: Topic.codeRequests),
        outcomes: Messages([.codeSent, .codeRefused], on: Topic.codeOutcomes, from: .codeDispatch),
        internalMessages: [], isAnsweredOnce: true, idField: "requestId",
        refusal: { .codeRefused(CodeRefused(requestId: $0, reason: $1, message: $2)) })

    public static let signIn = Flow(
        name: "sign-in", handler: .account,
        requests: Messages([.tokenRequested, .profileRequested, .signOutRequested, .sessionsRequested, .exportRequested], on: Topic.authRequests),
        outcomes: Messages([.tokenIssued, .tokenRefused, .profileAnswered, .signedOut, .sessionsAnswered, .exportAnswered], on: Topic.authOutcomes,
                           from: .account),
        internalMessages: [], isAnsweredOnce: true, idField: "requestId",
        refusal: { .tokenRefused(RequestRefusal(requestId: $0, reason: $1, message: $2)) })

    public static let accountChanges = Flow(
        name: "account changes", handler: .account,
        requests: Messages([.passwordChangeRequested, .passwordResetRequested, .emailChangeRequested, .accountDeletionRequested,
                            .profileUpdateRequested], on: Topic.accountRequests),
        outcomes: Messages([.accountChangeCompleted, .accountChangeFailed, .accountDeleted, .profileUpdated], on: Topic.accountOutcomes,
                           from: .account),
        internalMessages: [
            Messages([.updateProfileEmail, .eraseProfile, .updateProfile], on: Topic.profileCommands, from: .account),
            Messages([.eraseAvatar, .storeNewAvatar, .discardAvatar], on: Topic.imageCommands, from: .account),
            Messages([.profileEmailUpdated, .profileEmailRejected, .profileEmailWaiting, .profileErased, .profileUpdateApplied,
                      .profileUpdateRejected, .profileUpdateWaiting], on: Topic.accountReplies, from: .profile),
            Messages([.avatarErased, .newAvatarStored, .newAvatarRejected, .newAvatarWaiting, .avatarDiscarded], on: Topic.accountReplies,
                     from: .image),
        ],
        isAnsweredOnce: true, idField: "requestId",
        refusal: { .accountChangeFailed(RequestRefusal(requestId: $0, reason: $1, message: $2)) })

    /// The operator's actions on accounts (`registrar operator`): requests signed by the operator role, answered by the
    /// account worker, each one announced on `account.events` with the operator's name.
    public static let operatorActions = Flow(
        name: "operator actions", handler: .account,
        requests: Messages([.operatorRequested], on: Topic.operatorRequests, from: .operator),
        outcomes: Messages([.operatorAnswered, .operatorRefused], on: Topic.operatorOutcomes, from: .account),
        internalMessages: [], isAnsweredOnce: true, idField: "requestId",
        refusal: { .operatorRefused(RequestRefusal(requestId: $0, reason: $1, message: $2)) })

    /// The flow whose requests arrive on `topic`, if any.
    public static func requested(on topic: String) -> Flow? { all.first { $0.requests.topic == topic } }

    /// The declaration of each event type: its topic and producer.
    static let messagesOfKind: [Event.Kind: Messages] = Dictionary(
        uniqueKeysWithValues: all.flatMap(\.messages).flatMap { messages in messages.types.map { ($0, messages) } })
}

/// Events about accounts for services outside Registrar: each type published by the role owning the store whose
/// change it announces, from that store's outbox (``Outbox``), signed like every worker event. No worker reads them;
/// consumers outside Registrar read them under a principal of their own (`TopicAccess.eventsConsumer`).
public struct Announcements: Sendable {
    public var topic: String
    /// The role publishing each type.
    public var producers: [AccountEvent.Kind: WorkerRole]

    /// Every role that publishes on `topic`.
    public var roles: Set<WorkerRole> { Set(producers.values) }

    /// `account.events`: the profile worker announces the profile's changes, the account worker the rest.
    public static let account = Announcements(topic: Topic.accountEvents, producers: Dictionary(uniqueKeysWithValues: AccountEvent.Kind.allCases.map {
        ($0, $0 == .profileUpdated ? .profile : .account)
    }))

    /// Every announcement topic.
    public static let all = [account]
}

extension Event.Kind {
    /// The topic events of this type are published to.
    public var topic: String { declaration.topic }

    /// The worker roles that publish events of this type; none for a client's request, which carries
    /// no signature (the public request topics take only requests, see the routing tables).
    public var producers: Set<WorkerRole> { declaration.producer.map { [$0] } ?? [] }

    private var declaration: Flow.Messages {
        guard let messages = Flow.messagesOfKind[self] else { preconditionFailure("\(self) is declared by no flow") }
        return messages
    }
}

extension WorkerRole {
    /// The name of the worker holding this role: its command, consumer group, Kafka client id and principal.
    public var workerName: String { rawValue + "-worker" }

    /// The roles whose events answer public requests on the outcome topics: the public event keys a client (the
    /// gateway, the CLI) checks outcomes with.
    public static let outcomeProducers: Set<WorkerRole> = Set(Flow.all.compactMap(\.outcomes.producer))
}
