/// An event a step refuses to act on because its own records contradict it: a reply for a saga it
/// never started, or one naming other ids than the saga's. The worker dead-letters it with `reason`,
/// changing nothing.
public struct UntrustedEvent: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: DeadLetterReason
    public var message: String

    /// A reply for a saga (or pending sign-in, or account change) with no record.
    public static func unknownSaga(_ message: String) -> UntrustedEvent {
        UntrustedEvent(reason: .unknownSaga, message: message)
    }

    /// A reply whose ids or state differ from its saga's record.
    public static func replyMismatch(_ message: String) -> UntrustedEvent {
        UntrustedEvent(reason: .replyMismatch, message: message)
    }

    /// A saga command older than the version its worker's record reflects.
    public static func staleCommand(_ message: String) -> UntrustedEvent {
        UntrustedEvent(reason: .staleCommand, message: message)
    }

    public var description: String { "\(reason): \(message)" }
}
