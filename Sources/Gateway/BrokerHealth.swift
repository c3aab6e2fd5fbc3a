import Synchronization

/// What the gateway knows of its broker, from a probe once a second (so `/readyz` never asks the broker itself):
/// whether the last probe reached it, and since when it has not.
final class BrokerHealth: Sendable {
    private let state = Mutex<(reachable: Bool, lastReached: ContinuousClock.Instant)>((false, .now))

    func record(reachable: Bool, at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.reachable = reachable
            if reachable { state.lastReached = now }
        }
    }

    /// Whether the last probe reached the broker.
    var isReachable: Bool { state.withLock { $0.reachable } }

    /// How long the broker has not been reached (since the start, when it never was).
    func unreachableFor(now: ContinuousClock.Instant = .now) -> Duration {
        state.withLock { $0.reachable ? .zero : now - $0.lastReached }
    }
}
