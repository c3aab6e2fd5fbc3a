import Foundation
import Support

/// A throw-away S3-compatible server: `moto_server` (PyPI `moto[server]`) on a free port of 127.0.0.1,
/// keeping everything in memory; stopped when released or when the process exits.
///
/// The executable comes from `$MOTO_SERVER`, else the virtual environment `scripts/setup` makes
/// (`.build/test-servers/moto/bin/moto_server`).
public final class MotoServer: @unchecked Sendable {
    public let port: Int
    private let executable: String
    private let server = ServerProcess()

    /// The server's endpoint URL.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public init() throws {
        executable = try installedTestServer("moto/bin/moto_server", variable: "MOTO_SERVER", what: "moto_server (PyPI moto[server])")
        port = try freePort()
        try start()
        stopAtExit(self) { [weak self] in self?.stop() }
    }

    deinit {
        forgetAtExit(self)
        stop()
    }

    /// Starts the server (again, after `stop()`: with no buckets or objects) on the same port.
    public func start() throws {
        server.run(try ChildProcess(executable, ["-H", "127.0.0.1", "-p", "\(port)"], output: .discarded, errors: .discarded))
        try waitUntilListening(on: port)
    }

    /// Stops the server and waits until it has exited.
    public func stop() { server.stop() }
}
