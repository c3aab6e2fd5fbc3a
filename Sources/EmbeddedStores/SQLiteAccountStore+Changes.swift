import AccountChanges
import Domain
import Foundation
import Registration
import SignIn

/// Sign-in failures and account changes, in the account store's file so that a change and its
/// account update commit together.
extension SQLiteAccountStore: AccountChangeStore {
    public func updateFailures<T: Sendable>(uid: String, _ body: (inout SignInFailures) -> T) throws(StoreError) -> T {
        try database.transaction { (db) throws(StoreError) -> T in
            let stored = try db.query("SELECT consecutive, locked_until FROM sign_in_failures WHERE uid = ?", [uid]) { (row) throws(StoreError) in
                SignInFailures(consecutive: try row[0], lockedUntil: try row[1])
            }.first ?? SignInFailures()
            var failures = stored
            let result = body(&failures)
            if failures != stored {
                try db.execute("INSERT OR REPLACE INTO sign_in_failures (uid, consecutive, locked_until) VALUES (?, ?, ?)",
                               [uid, failures.consecutive, failures.lockedUntil])
            }
            return result
        }
    }

    public func replacePasswordHash(uid: String, with hash: String) throws(StoreError) {
        try database.withConnection { (db) throws(StoreError) in
            try db.execute("UPDATE accounts SET password_hash = ? WHERE uid = ?", [hash, uid])
        }
    }

    public func change(requestId: String) throws(StoreError) -> AccountChangeRecord? {
        try database.withConnection { (db) throws(StoreError) in
            try db.query(AccountChangeRecord.select + " WHERE request_id = ?", [requestId], AccountChangeRecord.init).first
        }
    }

    public func begin(_ record: AccountChangeRecord, applying update: AccountUpdate) throws(StoreError) -> AccountChangeStart {
        try database.transaction { (db) throws(StoreError) -> AccountChangeStart in
            let sql = AccountChangeRecord.select + " WHERE request_id = ?"
            if let existing = try db.query(sql, [record.requestId], AccountChangeRecord.init).first { return .existing(existing) }
            if case .email(let email) = update,
               try !db.query("SELECT uid FROM accounts WHERE email = ?", [email], { (row) throws(StoreError) -> String in try row[0] }).isEmpty {
                return .emailTaken
            }
            try db.execute(AccountChangeRecord.insert, record.values)
            try Self.apply(update, to: record.uid, in: &db)
            return .started
        }
    }

    public func save(_ record: AccountChangeRecord, applying update: AccountUpdate?) throws(StoreError) {
        try database.transaction { (db) throws(StoreError) in
            try db.execute(AccountChangeRecord.insertOrReplace, record.values)
            if let update { try Self.apply(update, to: record.uid, in: &db) }
        }
    }

    public func changes(in stage: AccountChangeStage, updatedBefore date: Date) throws(StoreError) -> [AccountChangeRecord] {
        let sql = AccountChangeRecord.select + " WHERE stage = ? AND updated_at < ? ORDER BY updated_at, request_id"
        return try database.withConnection { (db) throws(StoreError) in try db.query(sql, [stage, date], AccountChangeRecord.init) }
    }

    private static func apply(_ update: AccountUpdate, to uid: String, in db: inout SQLiteConnection) throws(StoreError) {
        let changed = switch update {
        case .passwordHash(let hash): try db.execute("UPDATE accounts SET password_hash = ? WHERE uid = ?", [hash, uid])
        case .email(let email): try db.execute("UPDATE accounts SET email = ? WHERE uid = ?", [email, uid])
        }
        guard changed == 1 else { throw StoreError(.permanent, "account \(uid) does not exist to be changed") }
    }
}

extension AccountChangeKind: SQLiteValueConvertible {}
extension AccountChangeStage: SQLiteValueConvertible {}

extension AccountChangeRecord: TableRecord {
    static let table = "account_changes"
    static let columns = ["request_id", "uid", "kind", "old_email", "new_email", "stage", "failure_reason", "failure_message", "updated_at"]

    init(row: SQLiteRow) throws(StoreError) {
        let reason: ReasonCode? = try row[6]
        let message: String? = try row[7]
        self.init(requestId: try row[0], uid: try row[1], kind: try row[2], oldEmail: try row[3], newEmail: try row[4],
                  stage: try row[5], failure: reason.map { Failure($0, message ?? "") }, updatedAt: try row[8])
    }

    var values: [any SQLiteValueConvertible] {
        [requestId, uid, kind, oldEmail, newEmail, stage, failure?.reason, failure?.message, updatedAt]
    }
}
