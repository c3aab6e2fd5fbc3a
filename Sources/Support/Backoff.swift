import Foundation

/// How an operation that failed transiently is tried again: up to `attempts` attempts, each pause a
/// random half to all of a delay that doubles from `initialDelay` up to `maxDelay`.
public struct Backoff: Sendable, Equatable {
    public var attempts: Int
    public var initialDelay: Duration
    public var maxDelay: Duration

    public init(attempts: Int, initialDelay: Duration, maxDelay: Duration) {
        precondition(attempts >= 1, "an operation is attempted at least once")
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
    }

    /// The pause after failed attempt `attempt` (counting from 1). Past `attempts` the delay stops growing.
    public func delay(after attempt: Int) -> Duration {
        let doublings = min(max(min(attempt, attempts) - 1, 0), 20)
        return min(initialDelay * (1 << doublings), maxDelay) * Double.random(in: 0.5...1.0)
    }

    /// Runs `body`, passing the attempt number (from 1), and runs it again after a pause, blocking the
    /// thread, while it throws an error for which `isTransient` is true; the last error is thrown.
    public func run<T, Failure: Error>(
        isTransient: (Failure) -> Bool, _ body: (Int) throws(Failure) -> T
    ) throws(Failure) -> T {
        var attempt = 1
        while true {
            do {
                return try body(attempt)
            } catch where attempt < attempts && isTransient(error) {
                Thread.sleep(forTimeInterval: delay(after: attempt).timeInterval)
                attempt += 1
            }
        }
    }

    /// Runs `body` like `run(isTransient:_:)`, pausing with `sleep` (a task sleep unless a clock is
    /// injected) instead of blocking a thread; other errors than `Failure` are thrown at once. `willRetry`
    /// sees each transient error and its attempt before the pause. With `limited` false there is no last
    /// attempt: transient errors are retried until `body` succeeds or the task is cancelled (then
    /// `CancellationError` is thrown), the pauses growing for `attempts` attempts and then staying there.
    public func run<T, Failure: Error>(
        limited: Bool = true, isTransient: (Failure) -> Bool, willRetry: (Failure, Int) -> Void = { _, _ in },
        sleep: (Duration) async throws -> Void = { try await Task.sleep(for: $0) }, _ body: (Int) async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body(attempt)
            } catch let error as Failure where (!limited || attempt < attempts) && isTransient(error) {
                try Task.checkCancellation()
                willRetry(error, attempt)
                try await sleep(delay(after: attempt))
                attempt += 1
            }
        }
    }
}
