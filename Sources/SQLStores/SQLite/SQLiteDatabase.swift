internal import CSQLite
import Domain
import Support
import Synchronization

/// One SQLite database file, opened in WAL mode with a busy timeout and foreign keys on.
///
/// Calls are serialised on one connection. Any number of `SQLiteDatabase`s, in this process or in
/// others, may open the same file: a transaction takes the write lock when it begins
/// (`BEGIN IMMEDIATE`), so concurrent writers queue for up to the busy timeout instead of failing
/// half-way. Failures are `StoreError`s, classified as `StoreError.Kind(sqliteCode:)` explains.
/// `migrate` counts each schema's scripts in the file's `registrar_migrations` table. Files that stop
/// accepting writes (immutable, read-only, a full disk) fail each call transiently, never crash.
public final class SQLiteDatabase: SQLDatabase {
    private let connection: Mutex<SQLiteConnection>
    /// Connections that units of work have finished with.
    private let idle = Mutex<[SQLiteConnection]>([])
    private let busyTimeout: Duration

    public var dialect: SQLDialect { .sqlite }
    /// The file's path.
    public let location: String

    /// Opens the database at `path`, creating the file (0600, in a 0700 directory) if needed. Refuses a
    /// database, `-wal` or `-shm` file or directory open to group or others: it may hold password hashes.
    ///
    /// - Parameter busyTimeout: How long a statement waits for another connection's lock before failing transiently.
    public init(path: String, busyTimeout: Duration = .seconds(5)) throws(StoreError) {
        do {
            try PrivateFiles.prepareFile(path)
            for companion in ["-wal", "-shm"] { try PrivateFiles.check(path + companion) }
        } catch {
            throw StoreError(.permanent, error.description)
        }
        location = path
        self.busyTimeout = busyTimeout
        do {
            connection = Mutex(try SQLiteConnection(path: path, busyTimeout: busyTimeout))
        } catch {
            throw error.storeError
        }
    }

    /// Runs SQL statements without parameters or results, e.g. a schema change or a test's trigger.
    public func execute(script: String) throws(StoreError) {
        try withConnection { (connection) throws(SQLError) in try connection.execute(script: script) }
    }

    @discardableResult
    public func withConnection<T: Sendable>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(StoreError) -> T {
        do {
            return try connection.withLock { (connection) throws(SQLError) in
                try connection.checkWritable()
                return try body(connection)
            }
        } catch {
            throw error.storeError
        }
    }

    /// A connection lent to `body` alone, so that a unit of work, which holds its connection while it works
    /// (hashing a password, say), holds up none of this database's calls. Connections are kept for the next
    /// unit once `body` is done with them (up to `idleLimit`): opening one costs more than a step's statements.
    @discardableResult
    public func withOwnConnection<T: Sendable>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(StoreError) -> T {
        do throws(SQLError) {
            let connection: SQLiteConnection
            if let kept = idle.withLock({ $0.popLast() }) {
                try kept.checkWritable()
                connection = kept
            } else {
                connection = try SQLiteConnection(path: location, busyTimeout: busyTimeout)
            }
            defer {
                // One left inside a transaction (a failed rollback) is closed rather than lent again.
                if !connection.isInTransaction {
                    idle.withLock { if $0.count < Self.idleLimit { $0.append(connection) } }
                }
            }
            return try body(connection)
        } catch {
            throw error.storeError
        }
    }

    /// Connections kept for units of work: one per unit a worker runs at once, at most.
    private static let idleLimit = 8

    /// Holds the write lock from its start (`BEGIN IMMEDIATE`).
    @discardableResult
    public func transaction<T: Sendable>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(StoreError) -> T {
        do {
            return try connection.withLock { (connection) throws(SQLError) in
                try connection.checkWritable()
                return try connection.transaction(body)
            }
        } catch {
            throw error.storeError
        }
    }

    /// Applies the scripts of `migrations` that the schema `name` lacks, in one transaction, so that
    /// concurrent openers of a new file apply them once.
    ///
    /// The table `registrar_migrations` counts the scripts applied per schema: one file may hold several
    /// (the account database holds the accounts, codes and tokens). A file made before that table counted
    /// its one schema in `user_version`; the first schema migrated in it takes that count.
    /// A schema already current is only read (nothing is written at start, so a worker opens its database on a full
    /// or read-only disk).
    public func migrate(_ name: String, _ migrations: [String]) throws(StoreError) {
        if let applied = try? withConnection({ (connection) throws(SQLError) in
            try connection.query("SELECT version FROM registrar_migrations WHERE schema_name = ?", [.text(name)])
        }), case .integer(let count)? = applied.first?.values.first, count >= migrations.count {
            return
        }
        try transaction { (connection) throws(SQLError) in
            try connection.execute(script: """
                CREATE TABLE IF NOT EXISTS registrar_migrations (
                    schema_name TEXT PRIMARY KEY,
                    version INTEGER NOT NULL
                ) STRICT
                """)
            let counted = try connection.query("SELECT version FROM registrar_migrations WHERE schema_name = ?", [.text(name)])
            var applied = if case .integer(let count)? = counted.first?.values.first { Int(count) } else { 0 }
            if counted.isEmpty, case .integer(let legacy)? = try connection.query("PRAGMA user_version", []).first?.values.first,
               legacy > 0 {
                applied = Int(legacy)
                try connection.execute(script: "PRAGMA user_version = 0")
            }
            for script in migrations.dropFirst(applied) { try connection.execute(script: script) }
            try connection.execute("""
                INSERT INTO registrar_migrations (schema_name, version) VALUES (?, ?)
                ON CONFLICT (schema_name) DO UPDATE SET version = excluded.version WHERE excluded.version > version
                """, [.text(name), .integer(Int64(max(applied, migrations.count)))])
        }
    }
}
