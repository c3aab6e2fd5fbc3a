import Dispatch
import Domain
import Synchronization
import Support

/// At most `capacity` connections to one server, each lent to one borrower at a time; connections are
/// opened when first needed and reopened after the server went away.
final class ConnectionPool: Sendable {
    private let url: String
    private let capacity: Int
    private let waitLimit: Duration
    private let permits: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])

    /// - Parameter waitLimit: How long a borrower waits for a free connection before failing transiently.
    init(url: String, capacity: Int, waitLimit: Duration) {
        precondition(capacity >= 1, "a pool holds at least one connection")
        self.url = url
        self.capacity = capacity
        self.waitLimit = waitLimit
        permits = DispatchSemaphore(value: capacity)
    }

    /// Runs `body` with a connection of its own.
    func withConnection<T>(_ body: (PostgresConnection) throws(SQLError) -> T) throws(SQLError) -> T {
        let deadline = DispatchTime.now() + waitLimit.timeInterval
        guard permits.wait(timeout: deadline) == .success else {
            throw SQLError(.transient, "all \(capacity) PostgreSQL connections stayed busy for \(waitLimit)")
        }
        defer { permits.signal() }
        let connection: PostgresConnection
        if let reused = idle.withLock({ $0.popLast() }) {
            connection = reused
        } else {
            connection = try PostgresConnection(url: url)
        }
        var readOnly = false
        defer { release(connection, serverIsReadOnly: readOnly) }
        do {
            return try body(connection)
        } catch {
            readOnly = error.isReadOnlyTransaction
            throw error
        }
    }

    /// Keeps `connection` for the next borrower, unless it is lost or found the server read-only: then
    /// the server probably went away or was demoted (restart, failover), which holds for the idle ones
    /// too, so they are all closed and reopened on demand — through a failover address, to the new primary.
    private func release(_ connection: PostgresConnection, serverIsReadOnly: Bool) {
        idle.withLock { idle in
            if connection.isBroken || serverIsReadOnly { idle.removeAll() } else { idle.append(connection) }
        }
    }
}
