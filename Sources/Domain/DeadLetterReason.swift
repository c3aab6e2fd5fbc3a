/// Why a message went to its dead-letter topic: the `dlq.reason` header. Part of the public contract
/// (`contract/asyncapi.yaml` lists every value; `DeadLetterReasonTests` compares the two).
@PublicInit
public struct DeadLetterReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    /// The message could not be decoded (not JSON, unknown type or version, missing, mistyped or unknown field, too large).
    public init(_ kind: UndecodableMessage.Kind) {
        self.init(rawValue: kind.rawValue)
    }

    /// The event's type is not accepted on the topic it arrived on.
    public static let unexpectedType = DeadLetterReason(rawValue: "unexpected_type")
    /// The message's Kafka key differs from the event's flow id.
    public static let keyMismatch = DeadLetterReason(rawValue: "key_mismatch")
    /// The step refused the message for good (a store rejected what it asked for, an output too large),
    /// so it could not answer it with an event. A failing dependency is waited for instead, never this.
    public static let stepFailed = DeadLetterReason(rawValue: "step_failed")
    /// A reply or outcome for a saga (or pending sign-in, or account change) that this worker never started.
    public static let unknownSaga = DeadLetterReason(rawValue: "unknown_saga")
    /// A reply or outcome whose ids (uid, image id) or state differ from the record of its saga.
    public static let replyMismatch = DeadLetterReason(rawValue: "reply_mismatch")
    /// A saga command older than what its worker's record already reflects (a replay, or a redelivery
    /// overtaken by a later step): applying it would undo that step or bring back what compensation removed.
    public static let staleCommand = DeadLetterReason(rawValue: "stale_command")
    /// An event on an internal route without a valid signature by a worker role the route takes
    /// (missing, invalid, from an unknown key id, or by another role; see ``Route/producers``).
    public static let unauthenticated = DeadLetterReason(rawValue: "unauthenticated")

    /// Every reason a worker dead-letters with.
    public static let all = UndecodableMessage.Kind.allCases.map(DeadLetterReason.init)
        + [unexpectedType, keyMismatch, stepFailed, unknownSaga, replyMismatch, staleCommand, unauthenticated]

    public var description: String { rawValue }
}
