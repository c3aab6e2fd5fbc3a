import Kafka
import Synchronization

/// What a worker's health endpoints report: whether its loop runs (`/healthz`) and whether it does its
/// work (`/readyz`: it has joined its group and no partition waits for a failing dependency).
public struct WorkerHealth: Sendable, Equatable {
    public var isRunning: Bool
    public var hasJoinedGroup: Bool
    /// Each work waiting for a dependency, with the dependency's error: a partition (`auth.requests/2: database is
    /// locked`), the periodic work (`the periodic work: database is locked`) or the outbox relay.
    public var dependencyFailures: [String]

    public var isReady: Bool { isRunning && hasJoinedGroup && dependencyFailures.isEmpty }

    /// Why the worker is not ready; empty when it is.
    public var reasons: [String] {
        (isRunning ? [] : ["the worker loop is not running"])
            + (isRunning && !hasJoinedGroup ? ["not yet a member of its consumer group"] : [])
            + dependencyFailures.map { "waiting for a dependency on \($0)" }
    }

    static let stopped = WorkerHealth(isRunning: false, hasJoinedGroup: false, dependencyFailures: [])
}

/// The worker a process runs now (a new one after its broker moved), for its health endpoints.
public final class WorkerBoard: Sendable {
    private let current = Mutex<Worker?>(nil)

    public init() {}

    public func show(_ worker: Worker?) { current.withLock { $0 = worker } }

    public func health() -> WorkerHealth { current.withLock { $0 }?.health() ?? .stopped }
}

/// The state of one worker session that its health is read from.
final class SessionState: Sendable {
    private let state = Mutex<(lanes: LaneTable?, background: [PeriodicWait], joined: Bool, member: Bool)>((nil, [], false, false))

    func began(with lanes: LaneTable, background: [PeriodicWait]) { state.withLock { ($0.lanes, $0.background) = (lanes, background) } }
    func ended() { state.withLock { $0 = (nil, [], false, false) } }

    /// The group's rebalance `event` reached this member: it is a member once assigned partitions (none, maybe), and
    /// not since it lost them (its session timed out: cut off from its broker, or frozen).
    func rebalanced(_ event: RebalanceEvent) {
        state.withLock { state in
            state.joined = true
            switch event {
            case .assigned: state.member = true
            case .lost: state.member = false
            case .revoked: break
            }
        }
    }

    /// Whether the consumer is a member of its group now.
    var isMember: Bool { state.withLock { $0.member } }

    var health: WorkerHealth {
        let (lanes, background, joined, _) = state.withLock { $0 }
        guard let lanes else { return .stopped }
        let failures = lanes.dependencyFailures().sorted { $0.key.description < $1.key.description }
        return WorkerHealth(isRunning: true, hasJoinedGroup: joined,
                            dependencyFailures: failures.map { "\($0.key.topic)/\($0.key.partition): \($0.value)" }
                                + background.compactMap { work in work.dependencyFailure.map { "\(work.name): \($0)" } })
    }
}
