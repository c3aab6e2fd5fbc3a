import Foundation
internal import Support
import Synchronization

/// A message a store keeps with the change it announces, written in the change's transaction, until the worker
/// owning the store has published it (`sequence` orders it in its outbox; 0 before it is kept).
@PublicInit
public struct OutboxMessage: Sendable, Equatable {
    public var sequence: Int = 0
    public var topic: String
    public var key: String
    public var type: String
    public var payload: [UInt8]
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

/// An outbox whose messages the relays of several replicas perform (the side effects): before performing one, a relay
/// claims it for a while, so that no two relays perform it at once. A claim held by a relay that stopped runs out.
public protocol ClaimedOutbox: Outbox {
    /// The oldest messages, at most `limit`, that `relay` may claim at `now`: none another relay holds (its own claims,
    /// and those that ran out, are), so that what other relays hold hides nothing behind it and costs no attempt.
    func claimable(for relay: String, now: Date, limit: Int) throws(StoreError) -> [OutboxMessage]
    /// Claims `message` for `relay` until `expiry` if no other relay holds it at `now` (its claim ran out, or there was
    /// none; a claim of `relay`'s own is renewed). Returns false if another relay holds it, or it is no longer kept.
    func claim(_ message: OutboxMessage, for relay: String, until expiry: Date, now: Date) throws(StoreError) -> Bool
    /// Ends `relay`'s claim on `message`, if it holds one: the others may take it at once.
    func release(_ message: OutboxMessage, for relay: String) throws(StoreError)
}

/// The side effects a store keeps in the transaction of the change that causes them (the welcome mail of a completed
/// registration, kept with the saga's move: `SagaEngine.effects`), performed after the commit from their own outbox by
/// the worker owning the store: each committed change keeps its effects once, a crash after the commit leaves them kept
/// for the next round, and a performer that fails for a while (the mail server down) holds up no step, only this
/// outbox. An effect is removed once performed, and only then: one that fails (its server down, refusing it, no
/// performer for its topic) stays kept and is tried again later, however long that takes. A crash between the
/// performance and the removal performs it again: exactly once into the outbox, at least once on the wire (a mail
/// keeps its Message-ID, which its reader's mail system can drop a copy by). The relays of several replicas share the
/// outbox: each claims an effect before performing it (``ClaimedOutbox``), for `lease`, and removes it as soon as it is
/// performed, so a claim need only outlast one performance (a mail's default connect and send time-outs: 70 s); one
/// that fails is released to the others at once; a relay that stopped with an effect claimed (a crash during its
/// performance) leaves it to the others, or to itself started again, once the claim runs out. Each effect's `topic`
/// names who performs it (`"mail"`), its `type` what it is (`"welcome"`), its `key` the account it concerns (an
/// account's erasure removes its kept effects).
public struct SideEffects: Sendable {
    public var outbox: any ClaimedOutbox
    /// The performer of each topic's effects: throws while it cannot perform one (the effect stays kept).
    public var performers: [String: @Sendable (OutboxMessage) throws(StoreError) -> Void]
    /// What this relay performed but could not yet remove, and when each failed effect is next tried: in memory, so a
    /// relay started anew (a worker restarted) tries at once every kept effect no other relay holds.
    private let memory = RelayMemory()
    /// This relay's name in its claims: its own, so that a relay started anew waits out its predecessor's claims.
    private let relay = UUID().uuidString
    /// How long a claim holds off the other relays.
    public var lease: Duration
    /// The wall clock the claims are read against, shared by the replicas.
    public var clock: @Sendable () -> Date

    public init(outbox: any ClaimedOutbox, performers: [String: @Sendable (OutboxMessage) throws(StoreError) -> Void],
                lease: Duration = .seconds(300), clock: @escaping @Sendable () -> Date = Date.init) {
        self.outbox = outbox
        self.performers = performers
        self.lease = lease
        self.clock = clock
    }

    /// One round. First removes what an earlier round performed but could not remove (never performed twice by this
    /// relay); then performs the kept effects that are due, oldest first, of the `limit` oldest no other relay holds,
    /// each once claimed (one another relay took meanwhile is left to it), removing each as soon as it is performed
    /// (`performed` is told of each; a removal that fails is tried again at the end of the round and at the start of the
    /// next). An effect that fails (`failed` is told) is released, stays kept and waits its own back-off (doubling from
    /// 1 s to 5 min) while the others go on, so one mailbox refusing its mail holds up no other; a transient failure
    /// before anything was performed ends the round there (the server is likely down for all). Returns how many it performed; throws a transient error when
    /// something failed and nothing was performed (the caller backs off), and the outbox's own failures (what was
    /// performed before is removed, or owed to the next round). `now` is the instant at which effects are due (a later
    /// one stands for time passed); a failure's back-off runs from the present instant.
    @discardableResult
    public func performPending(limit: Int = 1000, now: ContinuousClock.Instant = .now,
                               performed: (OutboxMessage) -> Void = { _ in },
                               failed: (OutboxMessage, StoreError) -> Void = { _, _ in }) throws(StoreError) -> Int {
        try removeOwed()
        var done: [OutboxMessage] = []
        var failure: StoreError?
        let pending = try outbox.claimable(for: relay, now: clock(), limit: limit)
        memory.forgetUnseen(but: pending, at: now, after: lease)
        for effect in pending where memory.isDue(effect.sequence, at: now) {
            let wallClock = clock()
            guard try outbox.claim(effect, for: relay, until: wallClock.addingTimeInterval(lease.seconds), now: wallClock) else { continue }
            do throws(StoreError) {
                guard let perform = performers[effect.topic] else {
                    throw StoreError(.permanent, "no performer of \(effect.topic) effects")
                }
                try perform(effect)
                memory.performed(effect)
                done.append(effect)
                performed(effect)
                try? removeOwed()
            } catch {
                try? outbox.release(effect, for: relay)
                memory.failed(effect.sequence)
                failed(effect, error)
                failure = failure ?? error
                if error.kind == .transient, done.isEmpty { break }
            }
        }
        try removeOwed()
        if done.isEmpty, let failure { throw StoreError(.transient, failure.message) }
        return done.count
    }

    private func removeOwed() throws(StoreError) {
        let owed = memory.owed()
        guard !owed.isEmpty else { return }
        try outbox.remove(owed)
        memory.removed(owed)
    }
}

/// A side-effect relay's memory: the effects performed and not yet removed, and each failed effect's next attempt.
private final class RelayMemory: Sendable {
    /// A failed effect's back-off, and since when no round has read it (another relay holds it, or it is gone).
    private struct Retry {
        var failures: Int
        var due: ContinuousClock.Instant
        var unseenSince: ContinuousClock.Instant?
    }

    private let state = Mutex<(owed: [OutboxMessage], retries: [Int: Retry])>(([], [:]))

    func isDue(_ sequence: Int, at now: ContinuousClock.Instant) -> Bool {
        state.withLock { $0.retries[sequence].map { $0.due <= now } ?? true }
    }

    func performed(_ effect: OutboxMessage) {
        state.withLock { state in
            state.retries[effect.sequence] = nil
            state.owed.append(effect)
        }
    }

    /// How long a failed effect waits before it is tried again: 1 s doubling to 5 min.
    private static let backoff = Backoff(attempts: 10, initialDelay: .seconds(1), maxDelay: .seconds(300))

    /// Schedules the next attempt of a failed effect from the present instant.
    func failed(_ sequence: Int) {
        let now = ContinuousClock.now
        state.withLock { state in
            let failures = (state.retries[sequence]?.failures ?? 0) + 1
            state.retries[sequence] = Retry(failures: failures, due: now + Self.backoff.delay(after: failures))
        }
    }

    /// Forgets the back-off of every effect no round has read for `lease` (`read` is this round's): no longer kept
    /// (performed by another relay, erased with its account). One another relay holds for a while (it is performing it)
    /// keeps its back-off, should it come back failed.
    func forgetUnseen(but read: [OutboxMessage], at now: ContinuousClock.Instant, after lease: Duration) {
        let sequences = Set(read.map(\.sequence))
        state.withLock { state in
            for (sequence, retry) in state.retries {
                if sequences.contains(sequence) {
                    state.retries[sequence]?.unseenSince = nil
                } else if let since = retry.unseenSince {
                    if now - since >= lease { state.retries[sequence] = nil }
                } else {
                    state.retries[sequence]?.unseenSince = now
                }
            }
        }
    }

    func owed() -> [OutboxMessage] { state.withLock { $0.owed } }

    func removed(_ effects: [OutboxMessage]) {
        state.withLock { state in state.owed.removeAll { owed in effects.contains { $0.sequence == owed.sequence } } }
    }
}
