import Foundation

/// How a step that failed transiently is retried: exponential back-off with full jitter.
public struct RetryPolicy: Sendable {
    public var maxAttempts: Int
    public var initialDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 6, initialDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(5)) {
        self.maxAttempts = maxAttempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
    }

    /// The wait before attempt `attempt + 1` (attempt counts from 1): a random share of the capped exponential delay.
    public func delay(after attempt: Int) -> Duration {
        let exponential = initialDelay * Int(pow(2.0, Double(min(attempt - 1, 20))))
        let capped = min(exponential, maxDelay)
        return capped * Double.random(in: 0.5...1.0)
    }
}
