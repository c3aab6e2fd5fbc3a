import CSQLite
import Domain
import Registration
import Synchronization
import Support

/// One SQLite database file, opened in WAL mode with a busy timeout and foreign keys on, and
/// migrated to the latest schema when opened.
///
/// Calls are serialised on one connection. Any number of `SQLiteDatabase`s, in this process or in
/// others, may open the same file: a transaction takes the write lock when it begins
/// (`BEGIN IMMEDIATE`), so concurrent writers queue for up to the busy timeout instead of failing
/// half-way. Failures are `StoreError`s, classified as `StoreError.Kind(sqliteCode:)` explains.
public final class SQLiteDatabase: Sendable {
    private let connection: Mutex<SQLiteConnection>

    /// Opens the database at `path`, creating the file if needed, and applies the migrations it lacks.
    ///
    /// - Parameters:
    ///   - migrations: Schema scripts, applied in order in one transaction. The database's `user_version`
    ///     counts those applied, so only ever append to the list; a database at a higher version is left alone.
    ///   - busyTimeout: How long a statement waits for another connection's lock before failing transiently.
    public init(path: String, migrations: [String] = [], busyTimeout: Duration = .seconds(5)) throws(StoreError) {
        var connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout)
        try connection.transaction { (connection) throws(StoreError) in try connection.migrate(migrations) }
        self.connection = Mutex(connection)
    }

    /// Runs SQL statements without parameters or results, e.g. a schema change or a test's trigger.
    public func execute(script: String) throws(StoreError) {
        try connection.withLock { (connection) throws(StoreError) in try connection.execute(script: script) }
    }

    /// Runs `body` on the connection, where every statement commits on its own.
    @discardableResult
    func withConnection<T: Sendable>(_ body: (inout SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try connection.withLock { (connection) throws(StoreError) in try body(&connection) }
    }

    /// Runs `body` in one transaction holding the write lock from its start: commits when `body`
    /// returns, rolls back when it throws.
    @discardableResult
    func transaction<T: Sendable>(_ body: (inout SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try connection.withLock { (connection) throws(StoreError) in try connection.transaction(body) }
    }
}

/// The one owner of an open `sqlite3` handle, which it closes with its prepared statements.
///
/// `@unchecked Sendable` is sound: the handle is opened `SQLITE_OPEN_NOMUTEX` (multi-thread mode), in
/// which a connection may move between threads but must not be used by two at once. The connection
/// lives in its `SQLiteDatabase`'s `Mutex`, which lends it out only `inout` while locked, and being
/// noncopyable it cannot be copied out of there.
struct SQLiteConnection: ~Copyable, @unchecked Sendable {
    private let handle: OpaquePointer
    /// Prepared statements by SQL text; each is reset after use.
    private var statements: [String: OpaquePointer] = [:]

    fileprivate init(path: String, busyTimeout: Duration) throws(StoreError) {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard let handle = opened else { throw StoreError(sqliteCode: code, message: "cannot open \(path): out of memory") }
        do throws(StoreError) {
            guard code == SQLITE_OK else { throw Self.error(code, handle, context: path) }
            sqlite3_extended_result_codes(handle, 1)
            sqlite3_busy_timeout(handle, busyTimeout.timeoutMilliseconds)
            try Self.enableWriteAheadLog(handle, waiting: busyTimeout)
            try Self.execute(script: "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", handle)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs `sql` with `values` bound to its parameters, reading each result row with `read`.
    mutating func query<Row>(_ sql: String, _ values: [any SQLiteValueConvertible] = [],
                             _ read: (SQLiteRow) throws(StoreError) -> Row) throws(StoreError) -> [Row] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        precondition(Int(sqlite3_bind_parameter_count(statement)) == values.count, "wrong number of values for: \(sql)")
        for (offset, value) in values.enumerated() {
            let code = Self.bind(value.sqliteValue, at: Int32(offset + 1), in: statement)
            guard code == SQLITE_OK else { throw Self.error(code, handle) }
        }
        var rows: [Row] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: rows.append(try read(SQLiteRow(statement: statement)))
            case SQLITE_DONE: return rows
            case let code: throw Self.error(code, handle)
            }
        }
    }

    /// Runs `sql` with `values` bound to its parameters, ignoring any result rows.
    /// - Returns: How many rows it inserted, updated or deleted (meaningful for those statements only).
    @discardableResult
    mutating func execute(_ sql: String, _ values: [any SQLiteValueConvertible] = []) throws(StoreError) -> Int {
        _ = try query(sql, values) { _ in () }
        return Int(sqlite3_changes(handle))
    }

    /// Runs SQL statements without parameters, ignoring any result rows.
    func execute(script: String) throws(StoreError) {
        try Self.execute(script: script, handle)
    }

    fileprivate mutating func transaction<T>(_ body: (inout SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            let result = try body(&self)
            try execute("COMMIT")
            return result
        } catch {
            // Some errors (e.g. SQLITE_FULL) have rolled the transaction back already.
            if sqlite3_get_autocommit(handle) == 0 { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Applies the scripts of `migrations` past the database's `user_version`; call it in a transaction,
    /// so that concurrent openers of a new file apply them once.
    fileprivate mutating func migrate(_ migrations: [String]) throws(StoreError) {
        let version = try query("PRAGMA user_version") { (row) throws(StoreError) -> Int in try row[0] }.first ?? 0
        guard version < migrations.count else { return }
        for script in migrations.dropFirst(version) { try execute(script: script) }
        // A PRAGMA takes no parameters; the value is a count, not outside input.
        try execute(script: "PRAGMA user_version = \(migrations.count)")
    }

    private mutating func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK else { throw Self.error(code, handle) }
        guard let statement = prepared else { throw StoreError(.permanent, "no SQL statement in \"\(sql)\"") }
        statements[sql] = statement
        return statement
    }

    private static func bind(_ value: SQLiteValue, at index: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .null:
            sqlite3_bind_null(statement, index)
        case .integer(let integer):
            sqlite3_bind_int64(statement, index, integer)
        case .real(let real):
            sqlite3_bind_double(statement, index, real)
        case .text(let text):
            // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
            sqlite3_bind_text64(statement, index, text, UInt64(text.utf8.count),
                                unsafeBitCast(-1, to: sqlite3_destructor_type.self), UInt8(SQLITE_UTF8))
        }
    }

    /// Switches the file to WAL mode (which persists). While other connections open a new file at the
    /// same time, this fails at once with SQLITE_BUSY: SQLite skips the busy handler where waiting
    /// could deadlock. So it is retried here, for up to `timeout`.
    private static func enableWriteAheadLog(_ handle: OpaquePointer, waiting timeout: Duration) throws(StoreError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let code = sqlite3_exec(handle, "PRAGMA journal_mode = WAL", nil, nil, nil)
            if code == SQLITE_OK { return }
            guard code & 0xFF == SQLITE_BUSY, ContinuousClock.now < deadline else { throw error(code, handle) }
            sqlite3_sleep(5)
        }
    }

    private static func execute(script: String, _ handle: OpaquePointer) throws(StoreError) {
        let code = sqlite3_exec(handle, script, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, handle) }
    }

    private static func error(_ code: Int32, _ handle: OpaquePointer, context: String? = nil) -> StoreError {
        let message = String(cString: sqlite3_errmsg(handle))
        return StoreError(sqliteCode: code, message: context.map { "\($0): \(message)" } ?? message)
    }
}
