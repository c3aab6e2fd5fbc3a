/// One row of a query's result, as its driver read it.
public struct SQLRow: Sendable {
    /// The row's values, in the query's column order.
    public let values: [SQLValue]
    /// The columns' names, for error messages.
    public let columns: [String]

    public init(values: [SQLValue], columns: [String]) {
        self.values = values
        self.columns = columns
    }

    /// Column `index` (0-based) as a `T`; a permanent error when it holds something else.
    subscript<T: SQLValueConvertible>(index: Int) -> T {
        get throws(SQLError) {
            let value = values[index]
            guard let typed = T(sqlValue: value) else {
                throw SQLError(.permanent, "column \(columns[index]) holds \(value), not a \(T.self)")
            }
            return typed
        }
    }
}

/// A value kept as one row of one table; statements are built from its column list, so the SQL,
/// the bound values and the row reads cannot drift apart.
protocol TableRecord: TableRow {
    init(row: SQLRow) throws(SQLError)
    var values: [any SQLValueConvertible] { get }
}

/// The table of a `TableRecord`, or of a record whose values depend on the dialect.
protocol TableRow {
    static var table: String { get }
    /// The columns, primary key first, in the order of the values bound and of the reads of a row.
    static var columns: [String] { get }
    /// How many of the first `columns` make up the primary key: 1 unless the record says otherwise.
    static var keyColumnCount: Int { get }
}

extension TableRow {
    static var keyColumnCount: Int { 1 }

    /// `SELECT <columns> FROM <table>`, for a `WHERE` or `ORDER BY` clause to follow.
    static var select: String { "SELECT \(columns.joined(separator: ", ")) FROM \(table)" }

    /// `INSERT INTO <table> (<columns>) VALUES (?, …)`, which binds `values`.
    static var insert: String {
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
    }

    /// `insert` that inserts nothing when a row with the same key (or another unique value) exists.
    static var insertOrIgnore: String { insert + " ON CONFLICT DO NOTHING" }

    /// `insert` that replaces the columns of a row with the same primary key. SQLite (3.24+) and
    /// PostgreSQL spell an upsert alike.
    static var upsert: String {
        let updates = columns.dropFirst(keyColumnCount).map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        return "\(insert) ON CONFLICT (\(columns.prefix(keyColumnCount).joined(separator: ", "))) DO UPDATE SET \(updates)"
    }
}
