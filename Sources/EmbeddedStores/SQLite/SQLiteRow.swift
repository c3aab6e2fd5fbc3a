import CSQLite
import Domain
import Registration

/// The row a statement has stepped to; valid only inside the closure it is passed to.
struct SQLiteRow {
    let statement: OpaquePointer

    /// Column `index` (0-based) as a `T`; a permanent error when it holds something else.
    subscript<T: SQLiteValueConvertible>(index: Int32) -> T {
        get throws(StoreError) {
            let value = value(at: index)
            guard let typed = T(sqliteValue: value) else {
                let column = sqlite3_column_name(statement, index).map { String(cString: $0) } ?? "\(index)"
                throw StoreError(.permanent, "column \(column) holds \(value), not a \(T.self)")
            }
            return typed
        }
    }

    private func value(at index: Int32) -> SQLiteValue {
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
}

/// A value kept as one row of one table; statements are built from its column list, so the SQL,
/// the bound values and the row reads cannot drift apart.
protocol TableRecord {
    static var table: String { get }
    /// The columns, primary key first, in the order of `values` and of the reads in `init(row:)`.
    static var columns: [String] { get }
    init(row: SQLiteRow) throws(StoreError)
    var values: [any SQLiteValueConvertible] { get }
}

extension TableRecord {
    /// `SELECT <columns> FROM <table>`, for a `WHERE` or `ORDER BY` clause to follow.
    static var select: String { "SELECT \(columns.joined(separator: ", ")) FROM \(table)" }
    /// `INSERT INTO <table> (<columns>) VALUES (?, …)`, which binds `values`.
    static var insert: String { "INSERT INTO \(intoColumns)" }
    /// `insert` that replaces a row with the same key.
    static var insertOrReplace: String { "INSERT OR REPLACE INTO \(intoColumns)" }

    private static var intoColumns: String {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return "\(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
    }
}
