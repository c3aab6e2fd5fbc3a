import Foundation
import Synchronization

/// A child process started from a binary of this build (a worker, the broker), with its standard
/// output readable line by line and its standard error appended to a log file or inherited.
public final class ChildProcess: @unchecked Sendable {
    // `process` and the pipe are configured in `init` and only read afterwards; Foundation's
    // Process is safe to signal and query from any thread once running.
    private let process: Process
    private let output: Pipe
    private let lines: LineReader

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    public let name: String

    /// Starts `executable` with `arguments`; standard error goes to `stderrPath` (appended) or is inherited.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                stderrPath: String? = nil) throws {
        name = (executable as NSString).lastPathComponent
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        if let stderrPath {
            if !FileManager.default.fileExists(atPath: stderrPath) {
                _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
            handle.seekToEndOfFile()
            process.standardError = handle
        }
        lines = LineReader(output.fileHandleForReading)
        // Told of the exit by Foundation, so that waiting does not spin (`waitUntilExit` polls a run loop).
        process.terminationHandler = { [exit] process in
            exit.record(process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus)
        }
        try process.run()
    }

    private let exit = ProcessExitStatus()

    /// The next line the process writes on standard output, or nil at its end.
    public func nextLine() async -> String? {
        await lines.next()
    }

    /// Sends `signal` (SIGTERM, SIGKILL, …).
    public func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the process to exit and returns its status (128 + signal when killed).
    public func waitForExit() async -> Int32 {
        await exit.wait()
    }

    /// User plus system CPU time the process has used so far (from `/proc/<pid>/stat`), while it runs.
    public var cpuTime: Duration? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return .milliseconds((user + system) * 1000 / sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The path of the running executable, to start another process of the same binary.
    public static let currentExecutable: String = {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }()

    /// Sends SIGTERM, waits up to `grace` for a clean exit, then SIGKILL.
    @discardableResult
    public func stop(grace: Duration = .seconds(10)) async -> Int32 {
        send(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        send(SIGKILL)
        return await waitForExit()
    }
}

/// A process's exit status once known, and the tasks waiting for it. Fed by `Process.terminationHandler`,
/// because Foundation's `waitUntilExit` keeps a thread busy polling an empty run loop until the exit.
public final class ProcessExitStatus: Sendable {
    private let state = Mutex<(status: Int32?, waiting: [CheckedContinuation<Int32, Never>])>((nil, []))

    public init() {}

    /// Records the status and wakes every waiting task.
    public func record(_ status: Int32) {
        let waiting = state.withLock { state in
            state.status = status
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume(returning: status) }
    }

    /// The status, once the process has exited.
    public func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = state.withLock { state in
                if state.status == nil { state.waiting.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }
}

/// Reads lines from a file handle on a Dispatch thread, one at a time, in order.
private final class LineReader: @unchecked Sendable {
    // `buffer` and `ended` are touched only on `queue`.
    private let handle: FileHandle
    private let queue = DispatchQueue(label: "registrar.line-reader")
    private var buffer: [UInt8] = []
    private var ended = false

    init(_ handle: FileHandle) { self.handle = handle }

    func next() async -> String? {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.readLine()) }
        }
    }

    private func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if ended {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            let chunk = handle.availableData
            if chunk.isEmpty { ended = true } else { buffer.append(contentsOf: chunk) }
        }
    }
}
