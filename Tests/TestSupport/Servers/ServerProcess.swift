import Foundation
import Support
import Synchronization

/// The running process of a throw-away test server (moto, aiosmtpd, Tansu, noida-db): set by its `start`, taken
/// by its `stop` — which tests call from one task, and the exit handler from another.
final class ServerProcess: Sendable {
    private let process = Mutex<ChildProcess?>(nil)

    /// Takes `process` as the server's.
    func run(_ process: ChildProcess) { self.process.withLock { $0 = process } }

    /// Sends `signal` (SIGTERM; SIGKILL for a crash) and waits until the server has exited; false when none ran.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Bool {
        guard let process = self.process.withLock({ $0.take() }) else { return false }
        process.send(signal)
        process.waitUntilExit()
        return true
    }
}

/// A test server's executable: `$variable`, else `.build/test-servers/<installed>` as `scripts/setup` installs it
/// (`what` it installs there), else `command` on `PATH` when given.
func testServerExecutable(_ variable: String, installed: String, installing what: String, command: String? = nil) throws -> String {
    if let configured = ProcessInfo.processInfo.environment[variable] { return configured }
    let path = URL(fileURLWithPath: Binaries.packageRoot).appendingPathComponent(".build/test-servers/" + installed).path
    if FileManager.default.isExecutableFile(atPath: path) { return path }
    if let command, let found = TestSupport.executable(named: command) { return found }
    let directory = installed.split(separator: "/").first.map(String.init) ?? installed
    throw TestServerError("no \(command ?? installed): run scripts/setup (installs \(what) into .build/test-servers/\(directory)) or set \(variable)")
}
