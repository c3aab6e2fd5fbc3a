import Synchronization

/// Idle libcurl handles kept for reuse, so that transfers reuse connections; as many are open as
/// transfers ever ran at once.
public final class CurlHandlePool: Sendable {
    private let idle = Mutex<[CurlHandle]>([])

    public init() {}

    /// Runs `body` with a handle of its own.
    public func withHandle<T>(_ body: (CurlHandle) throws(CurlError) -> T) throws(CurlError) -> T {
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
