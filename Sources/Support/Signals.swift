import Dispatch
import Foundation
import Synchronization

/// Turns SIGTERM and SIGINT into an async event for graceful shutdown; a second signal exits at once.
public final class ShutdownSignal: @unchecked Sendable {
    // `sources` is written once in `init` and only kept alive afterwards; `received` is a Mutex; the
    // stream and its continuation are Sendable.
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation

    /// Starts watching `signals`. Keep the instance alive while the process runs.
    public init(signals: [Int32] = [SIGTERM, SIGINT]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let received = Mutex(0)
        self.stream = stream
        self.continuation = continuation
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let count = received.withLock { count in
                    count += 1
                    return count
                }
                if count > 1 { Foundation.exit(128 + number) }
                continuation.yield(number)
            }
            source.resume()
            return source
        }
    }

    /// Asks for the shutdown from within the process, as a signal would (e.g. an in-process worker's owner).
    public func trigger() {
        continuation.yield(0)
    }

    /// Returns when the first signal (or `trigger`) arrives.
    public func wait() async {
        for await _ in stream { return }
    }
}
