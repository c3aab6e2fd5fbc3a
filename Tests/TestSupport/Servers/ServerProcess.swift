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

