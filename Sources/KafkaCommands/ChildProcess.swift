import Foundation

/// Another `kafka-tool` process whose standard output is read line by line.
final class ChildProcess: Sendable {
    private let process: Process
    /// The child's standard output, one line at a time; ends when the child closes it.
    let lines: AsyncStream<String>

    /// Starts this executable again with `arguments`; its standard error is inherited.
    init(arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.currentExecutable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        let reader = Thread {
            var buffer = Data()
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            continuation.finish()
        }
        try process.run()
        reader.start()
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// User plus system CPU time the child has used so far (from /proc/<pid>/stat).
    var cpuTime: Duration? {
        guard let stat = try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
        return .milliseconds((user + system) * 1000 / ticksPerSecond)
    }

    /// Sends SIGTERM and waits for the child to exit; returns its exit status.
    @discardableResult
    func terminate() async -> Int32 {
        process.terminate()
        return await exitStatus()
    }

    /// Waits for the child to exit without blocking Swift's pool.
    func exitStatus() async -> Int32 {
        let process = self.process
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }

    private static let currentExecutable: String = {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }()
}
