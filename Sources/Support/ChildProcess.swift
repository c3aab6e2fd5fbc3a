import Foundation
import Synchronization

/// A child process — a worker, the broker, a test's server or tool — started with `posix_spawn`:
/// the one way Registrar and its tests run other programs.
///
/// Its standard output can be read line by line, its standard error kept, and its standard input
/// written. It inherits no descriptor but those three (a daemon it starts holds none of this
/// process's pipes), starts with no signal blocked, and is reaped by a thread of its own, so that
/// its exit is known without polling.
public final class ChildProcess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        /// `/dev/null`.
        case none
        /// A pipe this process writes with `write(_:)` and closes with `closeInput()`.
        case pipe
    }

    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        /// A pipe: standard output is read with `nextLine()`, standard error kept in `errorOutput`.
        case captured
        /// Appended to this file, created if need be.
        case file(String)
        /// This process's own stream.
        case inherited
        /// `/dev/null`.
        case discarded
        /// For standard error only: the same destination as standard output.
        case standardOutput
    }

    public let pid: Int32
    public let name: String
    private let lines: LineReader?
    private let errors: ErrorCollector?
    private let input: FileHandle?
    private let exit = ProcessExitStatus()

    /// Starts `executable` with `arguments`, its environment this process's with `environment` added.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                input: Input = .none, output: Output = .captured, errors: Output = .inherited) throws {
        name = (executable as NSString).lastPathComponent
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        func pipeEnds() throws -> (read: Int32, write: Int32) {
            // Not inherited by children spawned meanwhile: every spawn closes all but its three descriptors.
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw SpawnError("pipe: \(String(cString: strerror(errno)))") }
            return (fds[0], fds[1])
        }
        switch input {
        case .none:
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe:
            let ends = try pipeEnds()
            posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
            childEnds.append(ends.read)
            parentEnds.append(ends.write)
        }
        var outputEnd: Int32?
        var errorEnd: Int32?
        for (descriptor, destination) in [(Int32(1), output), (Int32(2), errors)] {
            switch destination {
            case .captured:
                let ends = try pipeEnds()
                posix_spawn_file_actions_adddup2(&actions, ends.write, descriptor)
                childEnds.append(ends.write)
                if descriptor == 1 { outputEnd = ends.read } else { errorEnd = ends.read }
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            case .inherited:
                break
            case .discarded:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            case .standardOutput:
                if descriptor == 2 { posix_spawn_file_actions_adddup2(&actions, 1, 2) }
            }
        }
        // Every other descriptor open now is closed in the child (one closed meanwhile is skipped).
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for descriptor in open where descriptor > 2 { posix_spawn_file_actions_addclose(&actions, descriptor) }
        // The child starts with no signal blocked and default handlers, whatever this thread has.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let variables = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { _, new in new }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard code == 0 else {
            (parentEnds + [outputEnd, errorEnd].compactMap { $0 }).forEach { close($0) }
            throw SpawnError("cannot start \(executable): \(String(cString: strerror(code)))")
        }
        self.pid = pid
        let spawned = pid
        self.input = parentEnds.first.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        lines = outputEnd.map { LineReader(FileHandle(fileDescriptor: $0, closeOnDealloc: true)) }
        self.errors = errorEnd.map { ErrorCollector(FileHandle(fileDescriptor: $0, closeOnDealloc: true)) }
        let exit = self.exit
        Self.running.withLock { $0[spawned] = self }
        Thread {
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) < 0 && errno == EINTR {}
            _ = Self.running.withLock { $0.removeValue(forKey: spawned) }
            let signal = status & 0x7F
            exit.record(signal == 0 ? (status >> 8) & 0xFF : 128 + signal)
        }.start()
    }

    /// Returns at once unless a signal began stopping the children (`stopAllOnSignal`): then never, since that stop ends
    /// the process with the signal's status (a command ending meanwhile, its children gone, must not end it first).
    public static func awaitingSignalStop() async {
        guard signalStop.withLock({ $0 })?.hasFired == true else { return }
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }

    private static let signalStop = Mutex<ShutdownSignal?>(nil)

    /// Every child started and not yet exited, by process id.
    private static let running = Mutex<[Int32: ChildProcess]>([:])

    /// Makes SIGTERM and SIGINT (a CI timeout, `kill`, Ctrl-C) stop every child process this process started and has
    /// not seen exit — SIGTERM to each, SIGKILL to those still running after `grace` — before this process ends as the
    /// signal would have ended it (exit status 128 + its number). For a command whose children must not outlive it:
    /// a local installation's workers, gateway and broker are processes of their own, which a signal to the command
    /// alone leaves running. A second signal ends this process at once.
    public static func stopAllOnSignal(grace: Duration = .seconds(10)) {
        let shutdown = ShutdownSignal()
        signalStop.withLock { $0 = shutdown }
        Task.detached {
            await shutdown.wait()
            let children = running.withLock { Array($0.values) }
            await withTaskGroup(of: Void.self) { group in
                for child in children { group.addTask { await child.stop(grace: grace) } }
            }
            Foundation.exit(128 + (shutdown.signalNumber ?? SIGTERM))
        }
    }

    /// Runs `executable` to its end, its standard input `input`; returns its exit status and
    /// standard output. Blocks the calling thread.
    public static func run(_ executable: String, _ arguments: [String], input: [UInt8]? = nil,
                           errors: Output = .inherited) throws -> (status: Int32, output: String) {
        let process = try ChildProcess(executable, arguments, input: input == nil ? .none : .pipe, errors: errors)
        if let input {
            Thread {
                process.write(input)
                process.closeInput()
            }.start()
        }
        let output = process.lines?.readToEnd() ?? ""
        return (process.waitUntilExit(), output)
    }

    public var isRunning: Bool { exit.status == nil }

    /// The next line the process writes on standard output, or nil at its end (or when not captured).
    public func nextLine() async -> String? {
        await lines?.next()
    }

    /// What the process has written on standard error so far, when captured.
    public var errorOutput: String { errors?.text ?? "" }

    /// Writes `bytes` to the process's standard input (a pipe).
    public func write(_ bytes: [UInt8]) {
        try? input?.write(contentsOf: bytes)
    }

    /// Closes the process's standard input: it reads its end.
    public func closeInput() {
        try? input?.close()
    }

    /// Sends `signal` (SIGTERM, SIGKILL, …) while the process runs.
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits for the process to exit and returns its status (128 + signal when killed).
    public func waitForExit() async -> Int32 {
        await exit.wait()
    }

    /// Blocks the calling thread until the process exits; returns its status.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        exit.waitBlocking()
    }

    /// User plus system CPU time the process has used so far (from `/proc/<pid>/stat`), while it runs.
    public var cpuTime: Duration? { ProcessUsage(pid: pid)?.cpuTime }

    /// The path of the running executable, to start another process of the same binary.
    public static let currentExecutable: String = {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }()

    /// Sends SIGTERM, waits up to `grace` for a clean exit, then SIGKILL.
    @discardableResult
    public func stop(grace: Duration = .seconds(10)) async -> Int32 {
        send(SIGTERM)
        let killer = Task {
            try await Task.sleep(for: grace)
            send(SIGKILL)
        }
        defer { killer.cancel() }
        return await waitForExit()
    }
}

/// A process that could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// A process's exit status once known, and the tasks and threads waiting for it.
final class ProcessExitStatus: Sendable {
    private let state = Mutex<(status: Int32?, waiting: [CheckedContinuation<Int32, Never>])>((nil, []))
    private let exited = DispatchSemaphore(value: 0)

    var status: Int32? { state.withLock { $0.status } }

    /// Records the status and wakes every waiting task and thread.
    func record(_ status: Int32) {
        let waiting = state.withLock { state in
            state.status = status
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume(returning: status) }
        exited.signal()
    }

    /// The status, once the process has exited.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = state.withLock { state in
                if state.status == nil { state.waiting.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// The status, blocking the calling thread until the process has exited.
    func waitBlocking() -> Int32 {
        if let status { return status }
        exited.wait()
        exited.signal()
        return status ?? -1
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

    /// Every line still to come, joined by newlines, once the stream has ended. Blocks the calling thread.
    func readToEnd() -> String {
        queue.sync {
            var lines: [String] = []
            while let line = readLine() { lines.append(line) }
            return lines.joined(separator: "\n")
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

/// Keeps what a process writes on standard error, read on a thread of its own.
private final class ErrorCollector: Sendable {
    private let collected = Mutex(Data())

    init(_ handle: FileHandle) {
        Thread { [self] in
            while case let chunk = handle.availableData, !chunk.isEmpty {
                collected.withLock { $0.append(chunk) }
            }
        }.start()
    }

    var text: String { collected.withLock { String(decoding: $0, as: UTF8.self) } }
}
