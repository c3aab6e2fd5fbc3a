import Domain
import Foundation

/// The answers one worker (e.g. `account-worker`) gave to requests, in the account database (table
/// `answers`, keyed by request topic and id, with the time each was given), so that every replica of the worker, on
/// any host, gives a request the one answer kept.
public struct SQLAnswerMemo: AnswerMemo {
    private let database: any SQLDatabase
    private let worker: String
    private let clock: @Sendable () -> Date

    /// The memo of `worker` in `database`, the account database, whose schema is created or migrated first; `clock`
    /// stamps the answers kept.
    public init(database: any SQLDatabase, worker: String, clock: @escaping @Sendable () -> Date = Date.init) throws(StoreError) {
        try database.migrate(accountSchema)
        self.database = database
        self.worker = worker
        self.clock = clock
    }

    public func answer(to request: AnswerKey) throws(StoreError) -> [UInt8]? {
        try database.withSession { (db) throws(SQLError) -> [UInt8]? in try answer(to: request, in: db) }
    }

    /// The first of concurrent keepers inserts; the others wait for its commit and read its answer.
    public func keep(_ answer: [UInt8], for request: AnswerKey) throws(StoreError) -> [UInt8]? {
        let now = clock()
        return try database.inTransaction { (db) throws(SQLError) -> [UInt8]? in
            let inserted = try db.execute("""
                INSERT INTO answers (worker, topic, request_id, answer, answered_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, [worker, request.topic, request.id, String(decoding: answer, as: UTF8.self), now])
            return inserted == 1 ? nil : try self.answer(to: request, in: db)
        }
    }

    /// A unit of work on the account database: the writes of every store there (accounts, sagas,
    /// failures, changes; codes and tokens when they share it) and the answers kept commit together.
    public func atomically<T: Sendable>(_ work: () throws -> T) throws -> T {
        try SQLUnitOfWork.perform(on: database, work)
    }

    public func forget(answeredBefore date: Date) throws(StoreError) -> Int {
        try database.withSession { (db) throws(SQLError) in
            try db.execute("DELETE FROM answers WHERE worker = ? AND answered_at < ?", [worker, date])
        }
    }

    private func answer(to request: AnswerKey, in db: SQLSession) throws(SQLError) -> [UInt8]? {
        try db.query("SELECT answer FROM answers WHERE worker = ? AND topic = ? AND request_id = ?", [worker, request.topic, request.id]) {
            (row) throws(SQLError) -> [UInt8] in
            let text: String = try row[0]
            return Array(text.utf8)
        }.first
    }
}
