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
    /// Atomically saves `record` and applies `change`; the record as stored, or nil, writing nothing, when another
    /// writer moved the saga first.
    func save(_ record: Record, applying change: Change?) throws(StoreError) -> Record?
    /// The sagas waiting for a reply that last moved before `date`.
    func waiting(movedBefore date: Date) throws(StoreError) -> [Record]
}

/// The one driver of every saga (registration, email change, and the sagas to come): it loads the record an event
/// is for, hands both to the saga's pure transition, commits the move's record and change in one unit of work (again,
/// on the fresh record, when another writer moved the saga first), runs the after-commit hooks, and returns the
/// move's events to publish. Its deadline sweep does the same with the saga's expiry.
public struct SagaEngine<Move: SagaMove>: Sendable {
    /// A side effect of a committed move (a mail): run after the commit with the saga's record as it now stands and
    /// the event handled (nil for the deadline sweep) — again when a redelivered event finds the saga already past it,
    /// since a crash may have come between the commit and the hook: at least once, so each must be idempotent (a
    /// mail keeps its Message-ID).
    public typealias Hook = @Sendable (_ record: Move.Record, _ event: Event?) throws -> Void

    public var log: any SagaLog<Move.Record, Move.Change>
    public var clock: @Sendable () -> Date
    public var afterCommit: [Hook]

    public init(log: any SagaLog<Move.Record, Move.Change>, clock: @escaping @Sendable () -> Date, afterCommit: [Hook] = []) {
        self.log = log
        self.clock = clock
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
            if let saved = try log.save(next, applying: move.change) { return try committed(saved, move, event) }
        }
        throw StoreError(.transient, "saga \(key) kept changing under concurrent writers")
    }

    /// Moves every saga waiting since before `deadline` by `expiry` (nil: it has nothing to undo).
    public func expire(movedBefore deadline: Date, _ expiry: (Move.Record, Date) -> Move?) throws -> [Event] {
        var events: [Event] = []
        for record in try log.waiting(movedBefore: deadline) {
            guard let move = expiry(record, clock()), let next = move.record else { continue }
            if let saved = try log.save(next, applying: move.change) { events += try committed(saved, move, nil) }
        }
        return events
    }

    private func committed(_ record: Move.Record, _ move: Move, _ event: Event?) throws -> [Event] {
        for hook in afterCommit { try hook(record, event) }
        return move.events(after: record)
    }
}
