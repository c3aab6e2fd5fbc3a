import Foundation
import Support

/// A throw-away S3-compatible server: `moto_server` (PyPI `moto[server]`) on a free port of 127.0.0.1,
/// keeping everything in memory; stopped when released or when the process exits.
///
/// The executable comes from `$MOTO_SERVER`, else the virtual environment `scripts/setup` makes
/// (`.build/test-servers/moto/bin/moto_server`), else `PATH`.
public final class MotoServer: @unchecked Sendable {
    public let port: Int
    private let executable: String
    // Replaced only by `start()` and `stop()`, which tests call from one task; guarded by `lock` for the exit handler.
    private let lock = NSLock()
    private var process: ChildProcess?

    /// The server's endpoint URL.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    public init() throws {
        executable = try Self.findExecutable()
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
        let process = try ChildProcess(executable, ["-H", "127.0.0.1", "-p", "\(port)"], output: .discarded, errors: .discarded)
        lock.withLock { self.process = process }
        try waitUntilListening(on: port)
    }

    /// Stops the server and waits until it has exited.
    public func stop() {
        guard let process = lock.withLock({ self.process.take() }) else { return }
        process.send(SIGTERM)
        process.waitUntilExit()
    }

    private static func findExecutable() throws -> String {
        if let configured = ProcessInfo.processInfo.environment["MOTO_SERVER"] { return configured }
        let packageRoot = URL(fileURLWithPath: Binaries.packageRoot)
        let virtualEnvironment = packageRoot.appendingPathComponent(".build/test-servers/moto/bin/moto_server").path
        if FileManager.default.isExecutableFile(atPath: virtualEnvironment) { return virtualEnvironment }
        guard let found = TestSupport.executable(named: "moto_server") else {
            throw TestServerError("no moto_server: run scripts/setup (installs moto[server] into .build/test-servers/moto) or set MOTO_SERVER")
        }
        return found
    }
}
