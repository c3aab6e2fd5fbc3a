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

/// The side effects a store keeps in the transaction of the change that causes them (the welcome mail of a completed
/// registration, kept with the saga's move: `SagaEngine.effects`), performed after the commit from their own outbox by
/// the worker owning the store: each committed change keeps its effects once, a crash after the commit leaves them kept
/// for the next round, and a performer that fails for a while (the mail server down) holds up no step, only this
/// outbox. An effect is removed once performed, so a crash in between performs it again: exactly once into the outbox,
/// at least once on the wire, each effect carrying the key its receiver drops a copy by (a mail's Message-ID, its
/// `key`). Each effect's `topic` names who performs it (`"mail"`), its `type` what it is (`"welcome"`).
public struct SideEffects: Sendable {
    public var outbox: any Outbox
    /// The performer of each topic's effects: throws a transient error while it cannot (kept, tried again), a permanent
    /// one when it refuses the effect for good (then removed, and reported).
    public var performers: [String: @Sendable (OutboxMessage) throws(StoreError) -> Void]

    public init(outbox: any Outbox, performers: [String: @Sendable (OutboxMessage) throws(StoreError) -> Void]) {
        self.outbox = outbox
        self.performers = performers
    }

    /// Performs the kept effects, oldest first, at most `limit`, removing each once performed (`performed` is told of
    /// each) or refused for good (`refused` is told of each; an effect of a topic with no performer is one); returns
    /// how many it removed. A transient failure ends the round there, thrown, that effect and those after it kept: the
    /// next round begins with it.
    @discardableResult
    public func performPending(limit: Int = 100, performed: (OutboxMessage) -> Void = { _ in },
                               refused: (OutboxMessage, StoreError) -> Void = { _, _ in }) throws(StoreError) -> Int {
        let pending = try outbox.pending(limit: limit)
        for effect in pending {
            var refusal: StoreError?
            do throws(StoreError) {
                guard let perform = performers[effect.topic] else {
                    throw StoreError(.permanent, "no performer of \(effect.topic) effects")
                }
                try perform(effect)
            } catch where error.kind != .transient {
                refusal = error
            }
            try outbox.remove([effect])
            if let refusal { refused(effect, refusal) } else { performed(effect) }
        }
        return pending.count
    }
}
