public import Support

/// How a store retries an operation that failed transiently (connection lost, server busy), inside one
/// call, before it gives up and lets the caller's own retry take over: a `Backoff` with the stores' defaults.
public struct StoreRetry: Sendable {
    public var backoff: Backoff

    /// By default 6 attempts over about 3 seconds: enough to ride out a database restart or a failover.
    public init(attempts: Int = 6, initialDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(1)) {
        backoff = Backoff(attempts: attempts, initialDelay: initialDelay, maxDelay: maxDelay)
    }

    /// Runs `body`, passing the attempt number (from 1), and runs it again after a pause while it
    /// throws an error for which `isTransient` is true; the last error is thrown.
    public func run<T, Failure: Error>(
        isTransient: (Failure) -> Bool, _ body: (Int) throws(Failure) -> T
    ) throws(Failure) -> T {
        try backoff.run(isTransient: isTransient, body)
    }
}
