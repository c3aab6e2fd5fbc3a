import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Client of a mock cluster's control socket (`kafka-tool broker --control PATH`): injects faults
/// into a broker running in another process.
public struct BrokerControl: Sendable {
    public var socketPath: String
    /// How long to wait for the broker's answer.
    public var timeout: Duration

    public init(socketPath: String, timeout: Duration = .seconds(10)) {
        self.socketPath = socketPath
        self.timeout = timeout
    }

    /// Sends `command` and waits for `ok`; throws the broker's error text otherwise. Blocks the caller.
    public func send(_ command: MockClusterCommand) throws(BrokerControlError) {
        try send(line: command.line)
    }

    /// Sends a raw command line (see `MockClusterCommand`).
    public func send(line: String) throws(BrokerControlError) {
        let fd: Int32
        do { fd = try UnixSocket.connect(to: socketPath, timeout: timeout) } catch { throw BrokerControlError(error.description) }
        defer { close(fd) }
        guard UnixSocket.write(line + "\n", to: fd) else { throw BrokerControlError("cannot write to \(socketPath)") }
        var reader = LineReader(fd: fd)
        guard let reply = reader.next() else { throw BrokerControlError("no answer from \(socketPath)") }
        guard reply == "ok" else {
            throw BrokerControlError(reply.hasPrefix("error ") ? String(reply.dropFirst(6)) : reply)
        }
    }
}
