/// The topic contract of Registrar. Every message is keyed by the id of the flow it belongs to
/// (the registration id), so that one flow's events stay in order on one partition.
/// The contract is documented in `contract/asyncapi.yaml`.
public enum Topic {
    /// Public input: `RegistrationRequested`, published by the CLI or any Kafka client.
    public static let registrationRequests = "registration.requests"
    /// Public output: `RegistrationCompleted` or `RegistrationFailed`, one per registration.
    public static let registrationOutcomes = "registration.outcomes"
    /// Commands to the image worker: `StoreAvatar`, `DeleteAvatar`.
    public static let imageCommands = "image.commands"
    /// Commands to the profile worker: `WriteProfile`, `DeleteProfile`.
    public static let profileCommands = "profile.commands"
    /// Replies of the image and profile workers to the account worker, which drives the saga.
    public static let registrationReplies = "registration.replies"
    /// Public input of the code dispatch worker: `CodeRequested`.
    public static let codeRequests = "code.requests"
    /// Public output of the code dispatch worker: `CodeRequestAnswered`.
    public static let codeOutcomes = "code.outcomes"

    /// Every topic with the partition count the local broker creates it with.
    public static let all: [(name: String, partitions: Int32)] = [
        (registrationRequests, 6), (registrationOutcomes, 6), (imageCommands, 6), (profileCommands, 6),
        (registrationReplies, 6), (codeRequests, 6), (codeOutcomes, 6),
    ] + inputs.map { (deadLetters(of: $0), 1) }

    /// The topics workers consume, each of which has a dead-letter topic.
    public static let inputs = [registrationRequests, registrationReplies, imageCommands, profileCommands, codeRequests]

    /// The dead-letter topic of `topic`: messages that could not be processed at all, with the reason.
    public static func deadLetters(of topic: String) -> String { topic + ".dlq" }
}
