import Domain
import Synchronization

/// Idle libcurl handles kept for reuse, so that requests reuse connections; as many are open as
/// requests ever ran at once.
final class CurlHandlePool: Sendable {
    private let idle = Mutex<[CurlHandle]>([])

    /// Runs `body` with a handle of its own.
    func withHandle<T>(_ body: (CurlHandle) throws(StoreError) -> T) throws(StoreError) -> T {
        let handle: CurlHandle
        if let reused = idle.withLock({ $0.popLast() }) {
            handle = reused
        } else {
            handle = try CurlHandle()
        }
        defer { idle.withLock { $0.append(handle) } }
        return try body(handle)
    }
}
