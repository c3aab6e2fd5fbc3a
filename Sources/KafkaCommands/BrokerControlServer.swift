import Foundation
import Kafka
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Serves a `MockCluster`'s control socket: reads one command per line (see `MockClusterCommand`)
/// and answers `ok` or `error <text>`. Runs on its own thread until `stop()`.
public final class BrokerControlServer: Sendable {
    private let listener: Int32
    private let path: String
    /// Written to by `stop()` to wake the serving thread out of `poll`.
    private let wakeUp: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)
    private let isStopped = Atomic(false)

    /// Listens at `path` (replacing any file there) and starts serving `cluster`.
    public init(cluster: MockCluster, path: String) throws(BrokerControlError) {
        do { listener = try UnixSocket.listen(at: path) } catch { throw BrokerControlError(error.description) }
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        wakeUp = (fds[0], fds[1])
        self.path = path
        let thread = Thread { [self] in
            serve(cluster)
            finished.signal()
        }
        thread.name = "mock-cluster-control"
        thread.start()
    }

    /// Stops serving, removes the socket file and waits for the thread; idempotent.
    public func stop() {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = write(wakeUp.write, "x", 1)
        finished.wait()
        close(listener)
        close(wakeUp.read)
        close(wakeUp.write)
        unlink(path)
    }

    private func serve(_ cluster: MockCluster) {
        while waitReadable(listener) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            defer { close(connection) }
            var reader = LineReader(fd: connection)
            while let line = reader.next(mayRead: { waitReadable(connection) }) {
                let reply: String
                do {
                    try MockClusterCommand(line: line).apply(to: cluster)
                    reply = "ok"
                } catch let error as BrokerControlError {
                    reply = "error \(error)"
                } catch {
                    reply = "error \(error)"
                }
                guard UnixSocket.write(reply + "\n", to: connection) else { break }
            }
        }
    }

    /// Waits until `fd` is readable; false once `stop()` was called.
    private func waitReadable(_ fd: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeUp.read, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 2, -1) < 0 && errno == EINTR {}
        return fds[1].revents == 0
    }
}
