import Foundation
import Support

/// A test server or command that could not be started.
public struct TestServerError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// Runs `executable` with `arguments` to its end; throws with its output when it fails.
///
/// The output goes through a file, not a pipe: a daemon the command starts (`pg_ctl start`) would
/// keep a pipe open for good.
@discardableResult
public func runCommand(_ executable: String, _ arguments: [String]) throws -> String {
    let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("command-\(UUID().uuidString).log").path
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    let status = try ChildProcess(executable, arguments, output: .file(outputPath), errors: .standardOutput).waitUntilExit()
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    guard status == 0 else {
        throw TestServerError("\(executable) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
    }
    return text
}

/// A test server `scripts/setup` installs: `$variable` when set, else `.build/test-servers/<path>` of this package;
/// the error says what to run (`what`: its name and package) when neither is there.
func installedTestServer(_ path: String, variable: String, what: String) throws -> String {
    if let configured = ProcessInfo.processInfo.environment[variable] { return configured }
    let installed = URL(fileURLWithPath: Binaries.packageRoot).appendingPathComponent(".build/test-servers/" + path).path
    guard FileManager.default.isExecutableFile(atPath: installed) else {
        throw TestServerError("no \(what): run scripts/setup (installs it into .build/test-servers) or set \(variable)")
    }
    return installed
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
