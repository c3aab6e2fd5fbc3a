import Accounts
import Domain
import Foundation

/// Account deletions (table `deletions`), in the account database so that a deletion's step and its account change
/// commit in one transaction.
extension SQLAccountStore: DeletionStore {
    public func deletion(requestId: String) throws(StoreError) -> DeletionRecord? {
        try database.withSession { (db) throws(SQLError) in try Self.deletion(requestId, in: db) }
    }

    public func begin(_ record: DeletionRecord, endingSessionsAt cutoff: Date,
                      announcing event: AccountEvent?) throws(StoreError) -> DeletionStart {
        try database.inTransaction { (db) throws(SQLError) -> DeletionStart in
            if let existing = try Self.deletion(record.requestId, in: db) { return .existing(existing) }
            // The account's row first (its revision's lock): an update beginning concurrently waits, then finds it deleting.
            guard let revision = try Self.takeRevision(of: record.uid, in: db) else { return .notActive }
            var stored = record
            stored.revision = revision
            // An email change in flight would be erased unanswered with the account, or set its old email back on a deleting one.
            if try Self.profileUpdateInFlight(uid: record.uid, in: db) { return .profileUpdateInFlight }
            if try Self.emailChangeInFlight(uid: record.uid, in: db) { return .profileUpdateInFlight }
            if let updated = try Self.updatedAvatar(uid: record.uid, in: db) {
                stored.imageId = updated
                stored.stage = .erasingAvatar
            }
            // A disabled account is deleted too (by an operator: its owner can no longer ask).
            let marked = try db.execute("UPDATE accounts SET status = ? WHERE uid = ? AND status IN (?, ?)",
                                        [AccountStatus.deleting, record.uid, AccountStatus.active, AccountStatus.disabled])
            guard marked == 1 else { return .notActive }
            try Self.apply(AccountUpdate(endsSessionsAt: cutoff), to: record.uid, in: db)
            guard try db.execute(DeletionRecord.insertOrIgnore, stored.values) == 1 else {
                // This request began concurrently (a redelivery): undo, and the retry finds its record.
                throw SQLError(.transient, "deletion \(record.requestId) was begun concurrently")
            }
            if let event { try Self.announce(event, in: db) }
            return .started(stored)
        }
    }

    public func save(_ record: DeletionRecord, keeping effects: [OutboxMessage]) throws(StoreError) -> DeletionRecord {
        try database.inTransaction { (db) throws(SQLError) -> DeletionRecord in
            try SQLOutbox.keep(effects: effects, db)
            var stored = record
            if DeletionStage.waiting.contains(record.stage) { stored.revision = try Self.nextRevision(of: record.uid, in: db) }
            let previous = try Self.deletion(record.requestId, in: db)?.stage
            try db.execute(DeletionRecord.upsert, stored.values)
            if record.stage == .completed {
                try Self.erase(uid: record.uid, in: db)
                if previous != .completed { try Self.announce(AccountEvent(.accountDeleted, uid: record.uid, at: record.updatedAt), in: db) }
            }
            return stored
        }
    }

    public func deletions(in stages: Set<DeletionStage>, updatedBefore date: Date) throws(StoreError) -> [DeletionRecord] {
        try records(in: stages, updatedBefore: date)
    }

    /// Deletes the account `uid` and every row naming it (its side effects not yet performed too: a welcome kept while
    /// the mail server was down is not sent after the erasure); its registration's record keeps only its ids and stage, so that
    /// a replay of the registration request is answered completed (without its sealed result, which named the account) and
    /// starts nothing.
    private static func erase(uid: String, in db: SQLSession) throws(SQLError) {
        try db.execute("DELETE FROM accounts WHERE uid = ?", [uid])
        try db.execute("UPDATE sagas SET email = '', name = '', image_url = NULL, reply_key = '', sealed_result = NULL WHERE uid = ?", [uid])
        for table in ["account_changes", "profile_updates", "sign_in_failures", "code_failures"] {
            try db.execute("DELETE FROM \(table) WHERE uid = ?", [uid])
        }
        try db.execute("DELETE FROM \(SQLOutbox.effectsTable) WHERE message_key = ?", [uid])
    }

    private static func deletion(_ requestId: String, in db: SQLSession) throws(SQLError) -> DeletionRecord? {
        try db.query(DeletionRecord.select + " WHERE request_id = ?", [requestId], DeletionRecord.init).first
    }
}

extension DeletionStage: SQLValueConvertible {}

extension DeletionRecord: TableRecord {
    static let table = "deletions"
    static let columns = ["request_id", "uid", "email", "image_id", "stage", "revision", "updated_at"]

    init(row: SQLRow) throws(SQLError) {
        self.init(requestId: try row[0], uid: try row[1], email: try row[2], imageId: try row[3], stage: try row[4], revision: try row[5],
                  updatedAt: try row[6])
    }

    var values: [any SQLValueConvertible] { [requestId, uid, email, imageId, stage, revision, updatedAt] }
}
