import Foundation
import Synchronization
@testable import TestSupport

/// Sends what this process writes to standard error (the in-process workers' logs) into a file instead, until `stop()`.
/// No pipe and no copying thread: a child process another test starts meanwhile inherits standard error and may outlive
/// the capture; it holds only the file, where a pipe's reader would wait for that child's end before `stop()` returned
/// (the test, and its whole run, hanging for as long).
final class StandardErrorCapture: Sendable {
    private let original: Int32
    private let stopped = Atomic(false)

    init(into path: String) throws {
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw HarnessError("cannot create \(path): errno \(errno)") }
        defer { close(file) }
        original = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
        guard original >= 0 else { throw HarnessError("cannot keep standard error: errno \(errno)") }
        dup2(file, STDERR_FILENO)
    }

    /// Restores standard error (once; later calls do nothing). What was written before is in the file.
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        dup2(original, STDERR_FILENO)
        close(original)
    }
}
