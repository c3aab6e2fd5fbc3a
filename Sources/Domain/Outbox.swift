/// A message a store keeps with the change it announces, written in the change's transaction, until the worker
/// owning the store has published it (`sequence` orders it in its outbox; 0 before it is kept).
public struct OutboxMessage: Sendable, Equatable {
    public var sequence: Int
    public var topic: String
    public var key: String
    public var type: String
    public var payload: [UInt8]

    public init(sequence: Int = 0, topic: String, key: String, type: String, payload: [UInt8]) {
        self.sequence = sequence
        self.topic = topic
        self.key = key
        self.type = type
        self.payload = payload
    }
}

/// The transactional outbox of one store: what its changes announce, kept in their transactions, so that a change
/// is announced if and only if it committed. The worker owning the store publishes the messages in order and
/// removes them once the broker acknowledged them; a crash in between publishes them again (at least once).
public protocol Outbox: Sendable {
    /// The oldest messages not yet published, at most `limit`, oldest first.
    func pending(limit: Int) throws(StoreError) -> [OutboxMessage]
    /// Removes `messages`, published and acknowledged.
    func remove(_ messages: [OutboxMessage]) throws(StoreError)
}
