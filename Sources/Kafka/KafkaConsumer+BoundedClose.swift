import Foundation

extension KafkaConsumer {
    /// Closes the consumer (committing and leaving its group) on a thread of its own and waits at most
    /// `limit` (real time). A consumer whose broker is gone or was never there may never finish closing
    /// (librdkafka 2.0.2, librdkafka#4519); it is then left to finish on that thread. Returns whether it
    /// finished in time.
    @discardableResult
    public func close(within limit: Duration) async -> Bool {
        let (closed, signal) = AsyncStream.makeStream(of: Void.self)
        Thread {
            self.close()
            signal.finish()
        }.start()
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { for await _ in closed {}; return !Task.isCancelled }
            group.addTask { (try? await Task.sleep(for: limit)) != nil ? false : true }
            let first = await group.next() ?? true
            group.cancelAll()
            return first
        }
    }

    /// Starts closing on a thread of its own and returns at once (for a `deinit`, which must not block).
    public func closeInBackground() {
        Thread { self.close() }.start()
    }
}
