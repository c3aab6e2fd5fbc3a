import Domain

/// The answers given to requests, in one SQLite file per worker (e.g. `<data>/answers-account-worker.sqlite`).
public struct SQLiteAnswerMemo: AnswerMemo {
    private let database: SQLiteDatabase

    /// Opens the memo at `path`, creating and migrating the file as needed.
    public init(path: String) throws(StoreError) {
        database = try SQLiteDatabase(path: path, migrations: [
            "CREATE TABLE answers (request_id TEXT PRIMARY KEY, answer TEXT NOT NULL) STRICT;",
        ])
    }

    public func answer(to requestId: String) throws(StoreError) -> [UInt8]? {
        try database.transaction { (db) throws(StoreError) -> [UInt8]? in try Self.answer(to: requestId, in: &db) }
    }

    public func keep(_ answer: [UInt8], for requestId: String) throws(StoreError) -> [UInt8] {
        try database.transaction { (db) throws(StoreError) -> [UInt8] in
            try db.execute("INSERT INTO answers (request_id, answer) VALUES (?, ?) ON CONFLICT (request_id) DO NOTHING",
                           [requestId, String(decoding: answer, as: UTF8.self)])
            return try Self.answer(to: requestId, in: &db) ?? answer
        }
    }

    private static func answer(to requestId: String, in db: inout SQLiteConnection) throws(StoreError) -> [UInt8]? {
        try db.query("SELECT answer FROM answers WHERE request_id = ?", [requestId]) { (row) throws(StoreError) -> [UInt8] in
            let text: String = try row[0]
            return Array(text.utf8)
        }.first
    }
}
