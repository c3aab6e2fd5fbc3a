import Support

extension Backoff {
    /// How a worker retries a step that failed transiently, or a publish: 6 attempts, pauses of up to 5 seconds.
    public static let worker = Backoff(attempts: 6, initialDelay: .milliseconds(100), maxDelay: .seconds(5))
}
