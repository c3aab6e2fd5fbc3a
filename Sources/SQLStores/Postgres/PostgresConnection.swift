internal import CPostgres
import Domain

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one owner of an open libpq connection (`PGconn`) and the statements prepared on it; closing
/// it when released.
///
/// `@unchecked Sendable` is sound: libpq lets a connection move between threads but not be used by
/// two at once, and a connection is only used by the one borrower its `ConnectionPool` lends it to.
final class PostgresConnection: SQLConnection, @unchecked Sendable {
    private let handle: OpaquePointer
    /// Names of the statements prepared on this connection, by SQL text.
    private var statements: [String: String] = [:]

    /// Connects to the server at `url` (a libpq connection URI or `key=value` string).
    init(url: String) throws(SQLError) {
        guard let handle = PQconnectdb(url) else { throw SQLError(.transient, "out of memory connecting to PostgreSQL") }
        guard PQstatus(handle) == CONNECTION_OK else {
            defer { PQfinish(handle) }
            throw SQLError(connection: handle)
        }
        // Server notices (e.g. "relation already exists, skipping" from idempotent migrations) are not
        // errors; keep them off the worker's standard error, which carries JSON log lines only.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        // A statement waits at most this long for another transaction's lock, then fails transiently (SQLSTATE 55P03) as
        // SQLite's busy timeout does: the worker retries, reporting its wait and sending its step's heartbeat, instead of
        // hanging silently on a lock held for minutes.
        if let set = PQexec(handle, "SET lock_timeout = '\(Self.lockTimeout)'") {
            defer { PQclear(set) }
            guard PQresultStatus(set) == PGRES_COMMAND_OK else {
                defer { PQfinish(handle) }
                throw SQLError(result: set)
            }
        }
        self.handle = handle
    }

    /// How long a statement waits for a lock: the embedded store's busy timeout.
    static let lockTimeout = "5s"


    deinit {
        PQfinish(handle)
    }

    /// Whether the connection is lost; a lost connection is never used again.
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Runs `sql` as a prepared statement with `values` bound to `$1`, `$2`, … (in text format).
    func query(_ sql: String, _ values: [SQLValue]) throws(SQLError) -> [SQLRow] {
        let result = try run(sql, values)
        defer { PQclear(result) }
        let columns = (0..<PQnfields(result)).map { PQfname(result, $0).map { String(cString: $0) } ?? "\($0)" }
        return (0..<PQntuples(result)).map { row in
            SQLRow(values: (0..<PQnfields(result)).map { Self.value(row, $0, of: result) }, columns: columns)
        }
    }

    /// Runs `sql` as a prepared statement with `values` bound to `$1`, `$2`, …, ignoring any rows.
    /// - Returns: How many rows it inserted, updated, deleted or selected.
    @discardableResult
    func execute(_ sql: String, _ values: [SQLValue]) throws(SQLError) -> Int {
        let result = try run(sql, values)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs SQL statements without parameters, e.g. a migration; not prepared.
    func execute(script: String) throws(SQLError) {
        PQclear(try checked(PQexec(handle, script)))
    }

    /// Runs `body` in one transaction: commits when it returns, rolls back when it throws.
    func transaction<T>(_ body: (any SQLConnection) throws(SQLError) -> T) throws(SQLError) -> T {
        try execute(script: "BEGIN")
        do {
            let result = try body(self)
            try execute(script: "COMMIT")
            return result
        } catch {
            if !isBroken { try? execute(script: "ROLLBACK") }
            throw error
        }
    }

    private func run(_ sql: String, _ values: [SQLValue]) throws(SQLError) -> OpaquePointer {
        let name = try prepared(sql, parameterCount: values.count)
        let texts = values.map(Self.text(of:))
        if let text = texts.first(where: { $0?.contains("\0") == true }) {
            throw SQLError(.permanent, "text with a NUL character cannot be stored: \(text.debugDescription)")
        }
        let parameters: [UnsafePointer<CChar>?] = texts.map { text in text.flatMap { UnsafePointer(strdup($0)) } }
        defer { parameters.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        return try checked(PQexecPrepared(handle, name, Int32(values.count), parameters, nil, nil, 0))
    }

    private func prepared(_ sql: String, parameterCount: Int) throws(SQLError) -> String {
        if let name = statements[sql] { return name }
        let name = "registrar_\(statements.count)"
        PQclear(try checked(PQprepare(handle, name, sql, Int32(parameterCount), nil)))
        statements[sql] = name
        return name
    }

    /// `value` as a text parameter; nil for NULL. Doubles print in their shortest exact form, which
    /// the server reads back exactly.
    private static func text(of value: SQLValue) -> String? {
        switch value {
        case .null: nil
        case .integer(let integer): String(integer)
        case .real(let real): "\(real)"
        case .text(let text): text
        }
    }

    /// Column `column` of row `row` of `result`, by its type: `BOOLEAN` (printed `t` or `f`) as 1 or
    /// 0, integers as integers, floating point as reals, everything else (e.g. arrays) as its text.
    private static func value(_ row: Int32, _ column: Int32, of result: OpaquePointer) -> SQLValue {
        guard PQgetisnull(result, row, column) == 0 else { return .null }
        let text = String(cString: PQgetvalue(result, row, column))
        switch PQftype(result, column) {
        case 16: return .integer(text == "t" ? 1 : 0)
        case 20, 21, 23: return Int64(text).map(SQLValue.integer) ?? .text(text)
        case 700, 701: return Double(text).map(SQLValue.real) ?? .text(text)
        default: return .text(text)
        }
    }

    /// `result` if its command succeeded; otherwise it is freed and its error thrown.
    private func checked(_ result: OpaquePointer?) throws(SQLError) -> OpaquePointer {
        guard let result else { throw SQLError(connection: handle) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            defer { PQclear(result) }
            throw SQLError(result: result)
        }
    }
}
