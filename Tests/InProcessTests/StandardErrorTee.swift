import Foundation
import Synchronization
@testable import TestSupport

/// Copies what this process writes to standard error (the in-process workers' logs) into a file,
/// passing it on to the real standard error too, until `stop()`.
final class StandardErrorTee: @unchecked Sendable {
    // The descriptors are set once in `init`; the copying thread owns the pipe's reading end.
    private let original: Int32
    private let done = DispatchSemaphore(value: 0)
    private let stopped = Atomic(false)

    init(copyingTo path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw HarnessError("cannot create \(path)")
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw HarnessError("pipe: \(errno)") }
        original = dup(STDERR_FILENO)
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
            try? file.close()
            done.signal()
        }.start()
    }

    /// Restores standard error and waits until everything written so far is in the file (once; later calls do nothing).
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        dup2(original, STDERR_FILENO)
        close(original)
        done.wait()
    }
}
