import Foundation

/// A throw-away PostgreSQL server: a new cluster in a temporary directory (`initdb`), started with
/// `pg_ctl` on a free port of 127.0.0.1, trusting local connections; stopped and deleted when
/// released or when the process exits.
///
/// PostgreSQL refuses to run as root, so under root the cluster belongs to the `postgres` user (from
/// Debian's `postgresql` package) and its commands run through `runuser`. The binaries come from
/// `$POSTGRES_BIN`, else the newest `/usr/lib/postgresql/<version>/bin`, else `PATH`.
public final class PostgresServer: @unchecked Sendable {
    // All stored properties are constants; the server process is driven through `pg_ctl` only.
    public let port: Int
    private let directory: String
    private let binaries: String

    /// One server shared by the tests of this process that do not stop it; each should use a
    /// database of its own (`newDatabase`).
    public static func shared() throws -> PostgresServer { try sharedServer.get() }

    private static let sharedServer = Result { try PostgresServer() }

    /// A `postgres://` URL of the database `name` on this server.
    public func url(database name: String = "postgres") -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(name)?connect_timeout=5"
    }

    public init() throws {
        binaries = try Self.binaryDirectory()
        port = try freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 {
            try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: directory)
        }
        try command("initdb", ["-D", "\(directory)/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
        try start()
        stopAtExit(self) { [directory, binaries] in Self.stop(directory, binaries) }
    }

    deinit {
        forgetAtExit(self)
        Self.stop(directory, binaries)
    }

    /// Starts the server again after `stop()`, on the same port with the same data.
    public func start() throws {
        try command("pg_ctl", startArguments)
    }

    private var startArguments: [String] {
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=1000"
        return ["-D", "\(directory)/data", "-o", options, "-l", "\(directory)/server.log", "-w", "start"]
    }

    /// Stops the server at once (fast shutdown: connections are terminated, 57P01).
    public func stop() throws {
        try command("pg_ctl", ["-D", "\(directory)/data", "-m", "fast", "-w", "stop"])
    }

    /// A shell command that restarts the server (fast shutdown: connections are terminated), for a
    /// fault command run by another process; it returns once the server accepts connections again.
    public var restartCommand: String {
        shellCommand("pg_ctl", ["-D", "\(directory)/data", "-m", "fast", "-l", "\(directory)/server.log", "-w", "restart"])
    }

    /// A shell command that stops the server (fast shutdown), keeps it down for `seconds` and starts it
    /// again, for a fault command run by another process.
    public func downCommand(seconds: Int) -> String {
        shellCommand("pg_ctl", ["-D", "\(directory)/data", "-m", "fast", "-w", "stop"]) + " && sleep \(seconds) && "
            + shellCommand("pg_ctl", startArguments)
    }

    /// A shell command that makes the server read-only for `seconds` (every session's new
    /// transactions refuse writes with 25006), then writable again, for a fault command run by another process.
    public func readOnlyCommand(seconds: Int) -> String {
        let psql = "'\(binaries)/psql' '\(url())' -q -v ON_ERROR_STOP=1"
        return "\(psql) -c 'ALTER SYSTEM SET default_transaction_read_only = on' -c 'SELECT pg_reload_conf()'"
            + " && sleep \(seconds) && \(psql) -c 'SET default_transaction_read_only = off'"
            + " -c 'ALTER SYSTEM RESET default_transaction_read_only' -c 'SELECT pg_reload_conf()'"
    }

    /// A new empty database on this server; its URL.
    public func newDatabase() throws -> String {
        let name = "test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        try command("psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-q", "-c", "CREATE DATABASE \(name)"])
        return url(database: name)
    }

    private func command(_ name: String, _ arguments: [String]) throws {
        try Self.command(binaries, name, arguments)
    }

    /// `name` with `arguments` as one shell command line, as the cluster's owner.
    private func shellCommand(_ name: String, _ arguments: [String]) -> String {
        let words = (getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + ["\(binaries)/\(name)"] + arguments
        return words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }

    private static func command(_ binaries: String, _ name: String, _ arguments: [String]) throws {
        let path = "\(binaries)/\(name)"
        if getuid() == 0 {
            try runCommand("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
        } else {
            try runCommand(path, arguments)
        }
    }

    private static func stop(_ directory: String, _ binaries: String) {
        _ = try? command(binaries, "pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func binaryDirectory() throws -> String {
        if let configured = ProcessInfo.processInfo.environment["POSTGRES_BIN"] { return configured }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        if let newest = versions.compactMap(Int.init).max() { return "/usr/lib/postgresql/\(newest)/bin" }
        guard let initdb = executable(named: "initdb") else {
            throw TestServerError("no PostgreSQL server binaries: run scripts/setup (apt package postgresql) or set POSTGRES_BIN")
        }
        return (initdb as NSString).deletingLastPathComponent
    }
}
