import Domain

/// One SQL database as a driver opens it (SQLite in `SQLite/`, PostgreSQL in `Postgres/`):
/// the seam the stores are written once over, with the `dialect` of its SQL.
public protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Where the database is (a file's path, a server's connection URI): two `SQLDatabase`s at one
    /// location are one database, whose stores join one `SQLUnitOfWork`.
    var location: String { get }

    /// Runs `body` on a connection where every statement commits on its own.
    @discardableResult
    func withConnection<T: Sendable>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(StoreError) -> T

    /// Runs `body` on a connection that no other call shares meanwhile, for work that holds one a
    /// while (a unit of work). By default `withConnection`'s, which lends one of a pool's.
    @discardableResult
    func withOwnConnection<T: Sendable>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(StoreError) -> T

    /// Runs `body` in one transaction: commits when it returns, rolls back when it throws. Writers
    /// that lock rows do so with the dialect's locking clause and row locks.
    @discardableResult
    func transaction<T: Sendable>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(StoreError) -> T

    /// Applies the scripts of `migrations` that the schema `name` lacks, once even when several
    /// processes open the database at once. Only ever append to a schema's list; a schema at a
    /// higher version (a newer build's) is left alone.
    func migrate(_ name: String, _ migrations: [String]) throws(StoreError)
}

/// A driver's connection, lent to one caller at a time. SQL comes in the dialect's spelling
/// (`SQLSession` turns the stores' `?` placeholders into it).
public protocol SQLConnection {
    /// Runs `sql` with `values` bound to its parameters; the result rows.
    func query(_ sql: String, _ values: [SQLValue]) throws(SQLError) -> [SQLRow]

    /// Runs `sql` with `values` bound to its parameters, ignoring any result rows.
    /// - Returns: How many rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ sql: String, _ values: [SQLValue]) throws(SQLError) -> Int

    /// Runs SQL statements without parameters, ignoring any result rows.
    func execute(script: String) throws(SQLError)
}

extension SQLDatabase {
    @discardableResult
    public func withOwnConnection<T: Sendable>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(StoreError) -> T {
        try withConnection(body)
    }

    /// Creates or migrates `schema` in this database, in this database's dialect.
    func migrate(_ schema: SQLSchema) throws(StoreError) {
        try migrate(schema.name, dialect == .sqlite ? schema.sqlite : schema.postgres)
    }

    /// Runs `body` on a session where every statement commits on its own; inside a unit of work on
    /// this database, on the unit's connection (in its transaction once that has begun).
    @discardableResult
    func withSession<T: Sendable>(_ body: (SQLSession) throws(SQLError) -> T) throws(StoreError) -> T {
        if let unit = SQLUnitOfWork.current(on: self) { return try unit.run(body) }
        return try withConnection { (connection) throws(SQLError) in try body(SQLSession(connection, dialect)) }
    }

    /// Runs `body` on a session in one transaction; inside a unit of work on this database, in the
    /// unit's transaction (begun now if need be), under a savepoint.
    @discardableResult
    func inTransaction<T: Sendable>(_ body: (SQLSession) throws(SQLError) -> T) throws(StoreError) -> T {
        if let unit = SQLUnitOfWork.current(on: self) { return try unit.runInTransaction(body) }
        return try transaction { (connection) throws(SQLError) in try body(SQLSession(connection, dialect)) }
    }
}

/// A store's schema: its migrations in each dialect, one entry per migration (append only, the
/// same number in both).
struct SQLSchema {
    var name: String
    var sqlite: [String]
    var postgres: [String]
}
