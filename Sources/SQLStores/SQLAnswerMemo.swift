import Domain

/// The answers one worker (e.g. `account-worker`) gave to requests, in the account database (table
/// `answers`), so that every replica of the worker, on any host, gives a request the one answer kept.
public struct SQLAnswerMemo: AnswerMemo {
    private let database: any SQLDatabase
    private let worker: String

    /// The memo of `worker` in `database`, the account database, whose schema is created or migrated first.
    public init(database: any SQLDatabase, worker: String) throws(StoreError) {
        try database.migrate(accountSchema)
        self.database = database
        self.worker = worker
    }

    public func answer(to requestId: String) throws(StoreError) -> [UInt8]? {
        try database.withSession { (db) throws(SQLError) -> [UInt8]? in try answer(to: requestId, in: db) }
    }

    /// The first of concurrent keepers inserts; the others wait for its commit and read its answer.
    public func keep(_ answer: [UInt8], for requestId: String) throws(StoreError) -> [UInt8]? {
        try database.inTransaction { (db) throws(SQLError) -> [UInt8]? in
            let inserted = try db.execute("INSERT INTO answers (worker, request_id, answer) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                                          [worker, requestId, String(decoding: answer, as: UTF8.self)])
            return inserted == 1 ? nil : try self.answer(to: requestId, in: db)
        }
    }

    /// A unit of work on the account database: the writes of every store there (accounts, sagas,
    /// failures, changes; codes and tokens when they share it) and the answers kept commit together.
    public func atomically<T: Sendable>(_ work: () throws -> T) throws -> T {
        try SQLUnitOfWork.perform(on: database, work)
    }

    private func answer(to requestId: String, in db: SQLSession) throws(SQLError) -> [UInt8]? {
        try db.query("SELECT answer FROM answers WHERE worker = ? AND request_id = ?", [worker, requestId]) {
            (row) throws(SQLError) -> [UInt8] in
            let text: String = try row[0]
            return Array(text.utf8)
        }.first
    }
}
