import Foundation

/// How a store retries an operation that failed transiently (connection lost, server busy), inside one
/// call, before it gives up and lets the caller's own retry take over: exponential back-off with jitter.
public struct StoreRetry: Sendable {
    public var attempts: Int
    public var initialDelay: Duration
    public var maxDelay: Duration

    /// By default 6 attempts over about 3 seconds: enough to ride out a database restart or a failover.
    public init(attempts: Int = 6, initialDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(1)) {
        precondition(attempts >= 1, "a store makes at least one attempt")
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
    }

    /// Runs `body`, passing the attempt number (from 1), and runs it again after a pause while it
    /// throws an error for which `isTransient` is true; the last error is thrown.
    public func run<T, Failure: Error>(
        isTransient: (Failure) -> Bool, _ body: (Int) throws(Failure) -> T
    ) throws(Failure) -> T {
        var attempt = 1
        while true {
            do {
                return try body(attempt)
            } catch where attempt < attempts && isTransient(error) {
                Thread.sleep(forTimeInterval: delay(after: attempt))
                attempt += 1
            }
        }
    }

    /// Seconds to wait after failed attempt `attempt`: half to all of the capped exponential delay.
    private func delay(after attempt: Int) -> TimeInterval {
        let capped = min(initialDelay * (1 << min(attempt - 1, 20)), maxDelay)
        let (seconds, attoseconds) = capped.components
        return (Double(seconds) + Double(attoseconds) / 1e18) * Double.random(in: 0.5...1.0)
    }
}
