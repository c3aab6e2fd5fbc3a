import Dispatch

/// Runs blocking work (a database call, a password hash, image decoding) on a Dispatch queue,
/// keeping it off Swift's cooperative thread pool, and returns its result.
public func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
