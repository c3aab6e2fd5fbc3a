import Foundation

/// What one reply, or a deadline, does to a saga: the record to save (nil: the saga stays as it is), the change to
/// its aggregate committed with it, and the events to publish once the record stands as `saved` (the store may give it
/// a revision its commands carry). A value a saga's pure transitions return (`SagaTransition`, `EmailChangeSaga`);
/// `SagaEngine` performs it.
public protocol SagaMove: Sendable {
    associatedtype Record: Sendable
    associatedtype Change: Sendable
    var record: Record? { get }
    var change: Change? { get }
    func events(after saved: Record) -> [Event]
}

/// Where a saga's records are kept, with the aggregate its moves change in the same unit of work.
public protocol SagaLog<Record, Change>: Sendable {
    associatedtype Record: Sendable
    associatedtype Change: Sendable
    /// The record of the saga keyed `key` (its flow id).
    func record(_ key: String) throws(StoreError) -> Record?
    /// Atomically saves `record`, applies `change` and keeps `effects` in the store's side-effect outbox
    /// (``SideEffects``); the record as stored, or nil, writing and keeping nothing, when another writer moved the saga
    /// first.
    func save(_ record: Record, applying change: Change?, keeping effects: [OutboxMessage]) throws(StoreError) -> Record?
    /// The sagas waiting for a reply, which the deadline sweep undoes when they make no progress.
    func waiting() throws(StoreError) -> [Record]
    /// How the deadline's `ProgressWatch` knows `record`: its key, a marker each of its moves rewrites, and the step
    /// (stage) it waits at.
    func mark(_ record: Record) -> ProgressWatch.Mark
}

/// The one driver of every saga (registration, email change, and the sagas to come): it loads the record an event
/// is for, hands both to the saga's pure transition, commits the move's record, its change and its side effects in one
/// unit of work (again, on the fresh record, when another writer moved the saga first), runs the after-commit hooks,
/// and returns the move's events to publish. Its deadline sweep does the same with the saga's expiry, for the sagas
/// that have made no progress (no move, no heartbeat of a worker waiting at their step) for the deadline, as its
/// `ProgressWatch` measures on the monotonic clock: a wall-clock step ages no saga, and a worker retrying a failing
/// store keeps its sagas alive.
public struct SagaEngine<Move: SagaMove>: Sendable {
    /// The side effects of a move (a welcome mail), from the record about to be saved and the event handled (nil for
    /// the deadline sweep): kept in the side-effect outbox in the move's own unit of work, so exactly when the move
    /// commits — once per committed move; a redelivered event that moves nothing keeps nothing — and performed from
    /// there after the commit by the worker owning the store (``SideEffects``), however long their receiver is down.
    /// Once per move only where the saga's log refuses a stale save (the registration's, by its record's version); the
    /// email-change, deletion and profile-update logs save without that check, so an effect given to their sagas must
    /// look at the stage it is about, not at the move alone.
    public typealias Effect = @Sendable (_ record: Move.Record, _ event: Event?) throws -> [OutboxMessage]
    /// Work after the commit of a move that must repeat safely (forgetting a deleted account's tokens): run with the
    /// saga's record as it now stands and the event handled — again when a redelivered event finds the saga already
    /// past it, since a crash may have come between the commit and the hook: at least once. What must happen once (a
    /// mail) is an `Effect`.
    public typealias Hook = @Sendable (_ record: Move.Record, _ event: Event?) throws -> Void

    public var log: any SagaLog<Move.Record, Move.Change>
    public var clock: @Sendable () -> Date
    /// How long each waiting saga has made no progress: kept by the step across its engine's uses.
    public var progress: ProgressWatch
    /// What each move keeps to be done after its commit (`Effect`).
    public var effects: [Effect]
    /// What runs after each commit, and again on a redelivery (`Hook`).
    public var afterCommit: [Hook]

    public init(log: any SagaLog<Move.Record, Move.Change>, clock: @escaping @Sendable () -> Date, progress: ProgressWatch,
                effects: [Effect] = [], afterCommit: [Hook] = []) {
        self.log = log
        self.clock = clock
        self.progress = progress
        self.effects = effects
        self.afterCommit = afterCommit
    }

    /// Moves the saga `key` on `event` by `transition`. A saga that does not exist is `missing`'s error; `check`
    /// refuses an event that is not about the saga (another uid, image id) before anything moves.
    public func advance(_ key: String, on event: Event, missing: () -> any Error, check: (Move.Record) throws -> Void = { _ in },
                        _ transition: (Move.Record, Date) -> Move) throws -> [Event] {
        for _ in 0..<8 {
            guard let record = try log.record(key) else { throw missing() }
            try check(record)
            let move = transition(record, clock())
            guard let next = move.record else { return try committed(record, move, event) }
            if let saved = try log.save(next, applying: move.change, keeping: try sideEffects(of: next, event)) {
                return try committed(saved, move, event)
            }
        }
        throw StoreError(.transient, "saga \(key) kept changing under concurrent writers")
    }

    /// The heartbeat of a worker waiting at `step` (retrying a failing store) while it holds the saga `key`: refused like
    /// a reply (`missing`, `check`), else counted as progress of every saga waiting at that step, since the worker holds
    /// those queued behind it too. Nothing is saved or published.
    public func heard(_ key: String, at step: String, missing: () -> any Error,
                      check: (Move.Record) throws -> Void = { _ in }) throws -> [Event] {
        guard let record = try log.record(key) else { throw missing() }
        try check(record)
        progress.progressed(step)
        return []
    }

    /// Moves by `expiry` every waiting saga that has made no progress for `deadline` (nil: it has nothing to undo). A
    /// saga whose step `retry` can ask for again (its command, which that step's worker handles idempotently: none by
    /// default) first gets one more deadline, its command published again: a command lost with a broker's memory
    /// then completes its saga instead of undoing it.
    public func expire(stalledFor deadline: Duration, retrying retry: (Move.Record) -> [Event] = { _ in [] },
                       _ expiry: (Move.Record, Date) -> Move?) throws -> [Event] {
        let waiting = try log.waiting()
        let stalled = progress.stalled(waiting.map(log.mark), for: deadline)
        var events: [Event] = []
        var retried: [String] = []
        for record in waiting where stalled.contains(log.mark(record).id) {
            let id = log.mark(record).id
            let again = retry(record)
            if !again.isEmpty, !progress.hadSecondChance(id) {
                events += again
                retried.append(id)
                continue
            }
            guard let move = expiry(record, clock()), let next = move.record else { continue }
            if let saved = try log.save(next, applying: move.change, keeping: try sideEffects(of: next, nil)) {
                events += try committed(saved, move, nil)
            }
        }
        // Only once the sweep has nothing left to fail: a failure publishes none of its events, the retries among them.
        progress.giveSecondChance(to: retried)
        return events
    }

    private func sideEffects(of record: Move.Record, _ event: Event?) throws -> [OutboxMessage] {
        try effects.flatMap { try $0(record, event) }
    }

    private func committed(_ record: Move.Record, _ move: Move, _ event: Event?) throws -> [Event] {
        for hook in afterCommit { try hook(record, event) }
        return move.events(after: record)
    }
}
