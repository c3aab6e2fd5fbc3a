import CPostgres
import Domain

/// One row of a command's result; valid only inside the closure it is passed to.
struct PostgresRow {
    let result: OpaquePointer
    let row: Int32

    /// Column `column` (0-based) as a `T`; a permanent error when it holds something else.
    subscript<T: PostgresValueConvertible>(column: Int32) -> T {
        get throws(PostgresError) {
            let text = PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            guard let value = T(postgresText: text) else {
                let name = PQfname(result, column).map { String(cString: $0) } ?? "\(column)"
                throw PostgresError(.permanent, "column \(name) holds \(text ?? "NULL"), not a \(T.self)")
            }
            return value
        }
    }
}

/// A value kept as one row of one table; statements are built from its column list, so the SQL,
/// the bound values and the row reads cannot drift apart.
protocol PostgresRecord {
    static var table: String { get }
    /// The columns, primary key first, in the order of `values` and of the reads in `init(row:)`.
    static var columns: [String] { get }
    /// How many of the first `columns` make up the primary key: 1 unless the record says otherwise.
    static var keyColumnCount: Int { get }
    init(row: PostgresRow) throws(PostgresError)
    var values: [any PostgresValueConvertible] { get }
}

extension PostgresRecord {
    static var keyColumnCount: Int { 1 }

    /// `SELECT <columns> FROM <table>`, for a `WHERE` or `ORDER BY` clause to follow.
    static var select: String { "SELECT \(columns.joined(separator: ", ")) FROM \(table)" }

    /// `INSERT INTO <table> (<columns>) VALUES ($1, …)`, which binds `values`.
    static var insert: String {
        "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(parameters(1...columns.count)))"
    }

    /// `insert` that replaces the columns of a row with the same primary key.
    static var upsert: String {
        let updates = columns.dropFirst(keyColumnCount).map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        return "\(insert) ON CONFLICT (\(columns.prefix(keyColumnCount).joined(separator: ", "))) DO UPDATE SET \(updates)"
    }
}

/// `$first, …, $last`: the placeholders of parameters `range`.
func parameters(_ range: ClosedRange<Int>) -> String {
    range.map { "$\($0)" }.joined(separator: ", ")
}
