import Foundation

/// A test server or command that could not be started.
public struct TestServerError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Runs `executable` with `arguments` to its end; throws with its output when it fails.
@discardableResult
public func runCommand(_ executable: String, _ arguments: [String]) throws -> String {
    let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("command-\(UUID().uuidString).log").path
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    let status = try SpawnedProcess(executable, arguments, outputPath: outputPath).wait()
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    guard status == 0 else {
        throw TestServerError("\(executable) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
    }
    return text
}

/// A child process started with `posix_spawn`, its output appended to a file.
///
/// Not Foundation's `Process`: its exit monitoring does not reap children reliably in the test
/// runner, and a daemon that a command starts (`pg_ctl start`) keeps inherited pipes open for good.
public struct SpawnedProcess: Sendable {
    public let pid: pid_t

    public init(_ executable: String, _ arguments: [String], outputPath: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
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
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard code == 0 else { throw TestServerError("cannot start \(executable): \(String(cString: strerror(code)))") }
        self.pid = pid
    }

    /// Waits for the process to exit; its exit status, or 128 + the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Sends SIGTERM and waits for the exit.
    public func terminate() {
        kill(pid, SIGTERM)
        wait()
    }
}

/// The path of `name` in the first directory of `PATH` that has it, if any.
public func executable(named name: String) -> String? {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
public func freePort() throws -> Int {
    let (socket, port) = try listenOnLoopback()
    close(socket)
    return port
}

/// A socket listening on a free port of 127.0.0.1, and the port.
public func listenOnLoopback() throws -> (socket: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestServerError("socket: \(errno)") }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let listening = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard listening else {
        close(fd)
        throw TestServerError("cannot listen on 127.0.0.1: \(errno)")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A socket connected to 127.0.0.1:`port`, or nil when nothing accepts there.
public func connectToLoopback(port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = loopback(port: port)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else {
        close(fd)
        return nil
    }
    return fd
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`.
public func waitUntilListening(on port: Int, timeout: Duration = .seconds(30)) throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let fd = connectToLoopback(port: port) {
            close(fd)
            return
        }
        Thread.sleep(forTimeInterval: 0.05)
    }
    throw TestServerError("nothing listens on 127.0.0.1:\(port) after \(timeout)")
}

private func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return address
}

/// Servers to stop when the test process exits, by their stop functions.
private let exitHandlers = ExitHandlers()

private final class ExitHandlers: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var handlers: [ObjectIdentifier: () -> Void] = [:]

    init() {
        atexit { exitHandlers.runAll() }
    }

    func add(_ owner: AnyObject, _ handler: @escaping () -> Void) {
        lock.withLock { handlers[ObjectIdentifier(owner)] = handler }
    }

    func remove(_ owner: AnyObject) {
        lock.withLock { _ = handlers.removeValue(forKey: ObjectIdentifier(owner)) }
    }

    func runAll() {
        lock.withLock { handlers.values }.forEach { $0() }
    }
}

/// Calls `stop` when the process exits unless `owner` is forgotten first (`forgetAtExit`).
func stopAtExit(_ owner: AnyObject, _ stop: @escaping () -> Void) {
    exitHandlers.add(owner, stop)
}

func forgetAtExit(_ owner: AnyObject) {
    exitHandlers.remove(owner)
}
