internal import CSQLite
import Domain
import Foundation
import Support

/// The one owner of an open `sqlite3` handle, which it closes with its prepared statements.
///
/// `@unchecked Sendable` is sound: the handle is opened `SQLITE_OPEN_NOMUTEX` (multi-thread mode), in
/// which a connection may move between threads but must not be used by two at once. The connection
/// lives in its `SQLiteDatabase`'s `Mutex`, which lends it out only while locked, to a closure
/// that must not keep it.
final class SQLiteConnection: SQLConnection, @unchecked Sendable {
    private let handle: OpaquePointer
    private let path: String
    /// Prepared statements by SQL text; each is reset after use.
    private var statements: [String: OpaquePointer] = [:]

    init(path: String, busyTimeout: Duration) throws(SQLError) {
        try Self.checkWritable(path)
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard let handle = opened else { throw SQLError(sqliteCode: code, message: "cannot open \(path): out of memory") }
        do throws(SQLError) {
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
        self.path = path
    }

    /// Fails transiently (`SQLITE_READONLY`) when the database file or its WAL files exist but refuse
    /// writes (made immutable, or read-only for this user). SQLite writes the WAL index through a
    /// shared mapping of `-shm`, and a write to a mapped file that refuses writes kills the process
    /// with SIGBUS instead of returning an error; checked before each use, the refusal is waited out.
    func checkWritable() throws(SQLError) {
        try Self.checkWritable(path)
    }

    private static func checkWritable(_ path: String) throws(SQLError) {
        for file in [path, path + "-wal", path + "-shm"] where access(file, W_OK) != 0 {
            let code = errno
            guard code != ENOENT else { continue }
            throw SQLError(sqliteCode: SQLITE_READONLY, message: "cannot write \(file): \(String(cString: strerror(code)))")
        }
    }

    /// Whether a transaction is open on the connection.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    func query(_ sql: String, _ values: [SQLValue]) throws(SQLError) -> [SQLRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        precondition(Int(sqlite3_bind_parameter_count(statement)) == values.count, "wrong number of values for: \(sql)")
        for (offset, value) in values.enumerated() {
            let code = Self.bind(value, at: Int32(offset + 1), in: statement)
            guard code == SQLITE_OK else { throw Self.error(code, handle) }
        }
        let count = sqlite3_column_count(statement)
        let columns = (0..<count).map { sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? "\($0)" }
        var rows: [SQLRow] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: rows.append(SQLRow(values: (0..<count).map { Self.value(at: $0, of: statement) }, columns: columns))
            case SQLITE_DONE: return rows
            case let code: throw Self.error(code, handle)
            }
        }
    }

    @discardableResult
    func execute(_ sql: String, _ values: [SQLValue]) throws(SQLError) -> Int {
        _ = try query(sql, values)
        return Int(sqlite3_changes(handle))
    }

    func execute(script: String) throws(SQLError) {
        try Self.execute(script: script, handle)
    }

    /// Runs `body` in one transaction holding the write lock from its start: commits when `body`
    /// returns, rolls back when it throws.
    func transaction<T>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(SQLError) -> T {
        try execute(script: "BEGIN IMMEDIATE")
        do throws(SQLError) {
            let result = try body(self)
            try execute(script: "COMMIT")
            return result
        } catch {
            // Some errors (e.g. SQLITE_FULL) have rolled the transaction back already.
            if sqlite3_get_autocommit(handle) == 0 { _ = try? execute(script: "ROLLBACK") }
            throw error
        }
    }

    private func prepared(_ sql: String) throws(SQLError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK else { throw Self.error(code, handle) }
        guard let statement = prepared else { throw SQLError(.permanent, "no SQL statement in \"\(sql)\"") }
        statements[sql] = statement
        return statement
    }

    private static func bind(_ value: SQLValue, at index: Int32, in statement: OpaquePointer) -> Int32 {
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

    /// Column `index` of the row `statement` has stepped to.
    private static func value(at index: Int32, of statement: OpaquePointer) -> SQLValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, index))
        default:
            // Text (a blob reads as its bytes). `sqlite3_column_bytes` must follow `sqlite3_column_text`.
            let text = sqlite3_column_text(statement, index)
            let count = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        }
    }

    /// Switches the file to WAL mode (which persists). While other connections open a new file at the
    /// same time, this fails at once with SQLITE_BUSY: SQLite skips the busy handler where waiting
    /// could deadlock. So it is retried here, for up to `timeout`.
    private static func enableWriteAheadLog(_ handle: OpaquePointer, waiting timeout: Duration) throws(SQLError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let code = sqlite3_exec(handle, "PRAGMA journal_mode = WAL", nil, nil, nil)
            if code == SQLITE_OK { return }
            guard code & 0xFF == SQLITE_BUSY, ContinuousClock.now < deadline else { throw error(code, handle) }
            sqlite3_sleep(5)
        }
    }

    private static func execute(script: String, _ handle: OpaquePointer) throws(SQLError) {
        let code = sqlite3_exec(handle, script, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, handle) }
    }

    private static func error(_ code: Int32, _ handle: OpaquePointer, context: String? = nil) -> SQLError {
        let message = String(cString: sqlite3_errmsg(handle))
        return SQLError(sqliteCode: code, message: context.map { "\($0): \(message)" } ?? message)
    }
}
