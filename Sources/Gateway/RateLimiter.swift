import Synchronization

/// Counts requests per key in fixed windows: at most `limit` in each `window`. Its refusals are counted
/// under its `name` (`registrar_gateway_rate_limited_total`).
final class RateLimiter: Sendable {
    let name: String
    private let limit: Int
    private let window: Duration
    private let counts = Mutex<(start: ContinuousClock.Instant, counts: [String: Int])>((.now, [:]))

    init(_ name: String, limit: Int, per window: Duration) {
        self.name = name
        GatewayMetrics.declare(limiter: name)
        self.limit = limit
        self.window = window
    }

    /// Counts a request for `key`; nil when allowed, else the seconds until the window ends.
    func admit(_ key: String, now: ContinuousClock.Instant = .now) -> Int? {
        let wait = counts.withLock { state -> Int? in
            if now - state.start >= window { state = (now, [:]) }
            let count = state.counts[key, default: 0]
            guard count < limit else {
                let left = window - (now - state.start)
                return max(1, Int(left.components.seconds) + (left.components.attoseconds > 0 ? 1 : 0))
            }
            state.counts[key] = count + 1
            return nil
        }
        if wait != nil { GatewayMetrics.refused(by: name) }
        return wait
    }
}
