import Domain

/// A connection as the stores use it: SQL with `?` placeholders and typed values, in its dialect.
struct SQLSession {
    let connection: any SQLConnection
    let dialect: SQLDialect

    init(_ connection: any SQLConnection, _ dialect: SQLDialect) {
        self.connection = connection
        self.dialect = dialect
    }

    /// Runs `sql` with `values` bound to its `?`s, reading each result row with `read`.
    func query<Row>(_ sql: String, _ values: [any SQLValueConvertible] = [],
                    _ read: (SQLRow) throws(SQLError) -> Row) throws(SQLError) -> [Row] {
        var rows: [Row] = []
        for row in try connection.query(dialect.statement(sql), values.map(\.sqlValue)) { rows.append(try read(row)) }
        return rows
    }

    /// Runs `sql` with `values` bound to its `?`s, ignoring any rows.
    /// - Returns: How many rows it inserted, updated or deleted.
    @discardableResult
    func execute(_ sql: String, _ values: [any SQLValueConvertible] = []) throws(SQLError) -> Int {
        try connection.execute(dialect.statement(sql), values.map(\.sqlValue))
    }

    /// Holds until the transaction ends a lock on `key` of `space`, so that one read-modify-write of
    /// a row, which may not exist yet, waits for another of the same row (where the dialect needs it).
    /// Keys are hashed: a rare collision only makes two unrelated writes wait for each other.
    func lock(_ key: String, in space: KeyLockSpace) throws(SQLError) {
        if let sql = dialect.keyLock { try execute(sql, [space.rawValue, key]) }
    }

    /// Runs `body` under a savepoint inside a transaction: when it throws, its writes alone are rolled
    /// back and the transaction may go on.
    func savepoint<T>(_ body: () throws(SQLError) -> T) throws(SQLError) -> T {
        try connection.execute(script: "SAVEPOINT registrar")
        do {
            let result = try body()
            try connection.execute(script: "RELEASE SAVEPOINT registrar")
            return result
        } catch {
            try? connection.execute(script: "ROLLBACK TO SAVEPOINT registrar")
            throw error
        }
    }

    /// Runs `body`, a caller's closure that throws `StoreError`s, inside a transaction: its errors
    /// roll the transaction back and reach the caller unchanged, without a retry.
    func passing<T>(_ body: () throws(StoreError) -> T) throws(SQLError) -> T {
        do {
            return try body()
        } catch {
            throw SQLError(passing: error)
        }
    }
}

/// The spaces of `SQLSession.lock`, one per kind of row.
enum KeyLockSpace: Int {
    case codes = 1
    case signInFailures = 2
    case codeFailures = 3
    case profiles = 4
}
