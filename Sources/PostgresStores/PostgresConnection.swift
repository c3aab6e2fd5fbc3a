import CPostgres
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
final class PostgresConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Names of the statements prepared on this connection, by SQL text.
    private var statements: [String: String] = [:]

    /// Connects to the server at `url` (a libpq connection URI or `key=value` string).
    init(url: String) throws(PostgresError) {
        guard let handle = PQconnectdb(url) else { throw PostgresError(.transient, "out of memory connecting to PostgreSQL") }
        guard PQstatus(handle) == CONNECTION_OK else {
            defer { PQfinish(handle) }
            throw PostgresError(connection: handle)
        }
        // Server notices (e.g. "relation already exists, skipping" from idempotent migrations) are not
        // errors; keep them off the worker's standard error, which carries JSON log lines only.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        self.handle = handle
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the connection is lost; a lost connection is never used again.
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Runs `sql` as a prepared statement with `values` bound to `$1`, `$2`, …, reading each result
    /// row with `read`.
    func query<Row>(_ sql: String, _ values: [any PostgresValueConvertible] = [],
                    _ read: (PostgresRow) throws(PostgresError) -> Row) throws(PostgresError) -> [Row] {
        let result = try run(sql, values)
        defer { PQclear(result) }
        var rows: [Row] = []
        for row in 0..<PQntuples(result) { rows.append(try read(PostgresRow(result: result, row: row))) }
        return rows
    }

    /// Runs `sql` as a prepared statement with `values` bound to `$1`, `$2`, …, ignoring any rows.
    /// - Returns: How many rows it inserted, updated, deleted or selected.
    @discardableResult
    func execute(_ sql: String, _ values: [any PostgresValueConvertible] = []) throws(PostgresError) -> Int {
        let result = try run(sql, values)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs SQL statements without parameters, e.g. a migration; not prepared.
    func execute(script: String) throws(PostgresError) {
        PQclear(try checked(PQexec(handle, script)))
    }

    /// Runs `body` in one transaction: commits when it returns, rolls back when it throws.
    func transaction<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
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

    private func run(_ sql: String, _ values: [any PostgresValueConvertible]) throws(PostgresError) -> OpaquePointer {
        let name = try prepared(sql, parameterCount: values.count)
        let texts = values.map(\.postgresText)
        if let text = texts.first(where: { $0?.contains("\0") == true }) {
            throw PostgresError(.permanent, "text with a NUL character cannot be stored: \(text.debugDescription)")
        }
        let parameters: [UnsafePointer<CChar>?] = texts.map { text in text.flatMap { UnsafePointer(strdup($0)) } }
        defer { parameters.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        return try checked(PQexecPrepared(handle, name, Int32(values.count), parameters, nil, nil, 0))
    }

    private func prepared(_ sql: String, parameterCount: Int) throws(PostgresError) -> String {
        if let name = statements[sql] { return name }
        let name = "registrar_\(statements.count)"
        PQclear(try checked(PQprepare(handle, name, sql, Int32(parameterCount), nil)))
        statements[sql] = name
        return name
    }

    /// `result` if its command succeeded; otherwise it is freed and its error thrown.
    private func checked(_ result: OpaquePointer?) throws(PostgresError) -> OpaquePointer {
        guard let result else { throw PostgresError(connection: handle) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            defer { PQclear(result) }
            throw PostgresError(result: result)
        }
    }
}
