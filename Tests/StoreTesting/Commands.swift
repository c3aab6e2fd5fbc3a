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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw TestServerError("\(executable) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
    }
    return text
}

/// The path of `name` in the first directory of `PATH` that has it, if any.
public func executable(named name: String) -> String? {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
public func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestServerError("socket: \(errno)") }
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw TestServerError("bind: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`.
public func waitUntilListening(on port: Int, timeout: Duration = .seconds(30)) throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        close(fd)
        if connected { return }
        Thread.sleep(forTimeInterval: 0.05)
    }
    throw TestServerError("nothing listens on 127.0.0.1:\(port) after \(timeout)")
}

func loopback(port: Int) -> sockaddr_in {
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
