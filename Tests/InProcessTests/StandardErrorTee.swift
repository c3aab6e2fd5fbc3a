import Foundation
import Synchronization
@testable import TestSupport

/// Copies what this process writes to standard error (the in-process workers' logs, and Swift Testing's own report of
/// the tests running beside) into a file, passing it on to the real standard error too, until `stop()`.
final class StandardErrorTee: Sendable {
    private let original: Int32
    private let done = DispatchSemaphore(value: 0)
    private let stopped = Atomic(false)

    init(copyingTo path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw HarnessError("cannot create \(path)")
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw HarnessError("pipe: \(errno)") }
        // Kept from children (close-on-exec); the copying thread owns it and the pipe's reading end, and closes both.
        original = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        dup2(ends[1], STDERR_FILENO)
        close(ends[1])
        let (reading, original, done) = (ends[0], original, done)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(reading, &buffer, buffer.count)
                guard count > 0 else { break }
                _ = buffer.withUnsafeBytes { write(original, $0.baseAddress, count) }
                file.write(Data(buffer[..<count]))
            }
            close(reading)
            close(original)
            try? file.close()
            done.signal()
        }.start()
    }

    /// Restores standard error and waits until what was written so far is copied (once; later calls do nothing). The
    /// copy ends when every writer of the pipe has closed it; a child process another test started meanwhile inherited
    /// it and may live on, so the wait is bounded: what the workers wrote before is copied within it, and the copying
    /// thread stays for that child's output.
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        dup2(original, STDERR_FILENO)
        _ = done.wait(timeout: .now() + 3)
    }
}
