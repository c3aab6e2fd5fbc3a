/// A store's failure, classified so workers know whether to retry.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { 
        /// The store is unavailable or busy (connection lost, locked, 5xx): retry later.
        case transient
        /// The store refused this write for good (constraint, read-only, 4xx): fail the step.
        case permanent
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
