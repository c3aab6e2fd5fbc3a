import Support

extension Backoff {
    /// How a worker retries a step that failed transiently, or a publish, for as long as the failure
    /// lasts: pauses doubling from 100 ms up to 5 seconds, then 5 seconds (half to all of it) each.
    public static let worker = Backoff(attempts: 7, initialDelay: .milliseconds(100), maxDelay: .seconds(5))
}
