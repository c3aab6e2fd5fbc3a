import Domain

/// One PostgreSQL database, reached through a bounded pool of connections.
///
/// Every call retries transient failures (a lost connection, a serialization failure or deadlock,
/// the server shutting down or starting up) with back-off on a fresh connection, then fails with a
/// `StoreError` classified as `StoreError.Kind(sqlState:)` explains. A retried write must therefore
/// be idempotent or detect its own earlier success: a lost connection leaves unknown whether a
/// `COMMIT` took effect.
public final class PostgresDatabase: SQLDatabase {
    private let pool: ConnectionPool
    private let retry: StoreRetry

    public var dialect: SQLDialect { .postgres }
    /// The connection URI it was opened with.
    public let location: String

    /// A database at `url`, a libpq connection URI (`postgres://user:password@host:port/name?sslmode=…`);
    /// nothing is connected until first used. A link to another host defaults to `sslmode=verify-full`
    /// (``LinkSecurity``).
    ///
    /// - Parameters:
    ///   - connections: The most connections this process opens.
    ///   - waitLimit: How long a call waits for a free connection before failing transiently.
    public init(url: String, connections: Int = 4, waitLimit: Duration = .seconds(10), retry: StoreRetry = StoreRetry()) {
        location = url
        pool = ConnectionPool(url: LinkSecurity.conninfo(url), capacity: connections, waitLimit: waitLimit)
        self.retry = retry
    }

    /// Runs SQL statements without parameters or results, e.g. an administrator's or a test's change.
    public func execute(script: String) throws(StoreError) {
        try withConnection { (connection) throws(SQLError) in try connection.execute(script: script) }
    }

    @discardableResult
    public func withConnection<T: Sendable>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(StoreError) -> T {
        try run { (connection) throws(SQLError) in try body(connection) }
    }

    /// Read committed; the whole transaction is retried on a transient failure.
    @discardableResult
    public func transaction<T: Sendable>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(StoreError) -> T {
        try run { (connection) throws(SQLError) in try connection.transaction(body) }
    }

    /// Runs `body` on a pooled connection, retrying transient failures.
    private func run<T>(_ body: (PostgresConnection) throws(SQLError) -> T) throws(StoreError) -> T {
        do {
            return try retry.run(isTransient: { $0.kind == .transient }) { (_) throws(SQLError) in
                try pool.withConnection(body)
            }
        } catch {
            throw error.storeError
        }
    }
}
