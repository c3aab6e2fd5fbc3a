import Accounts
import Foundation
import Domain

/// Accounts and registration sagas in one SQL database (tables `accounts` and `sagas`), so that a
/// saga step and its account change commit in one transaction. Any number of workers may share the
/// database; the same database keeps sign-in failures, account changes and the answer memo, and the outbox
/// (`account_outbox`) where each change keeps the ``AccountEvent`` announcing it, in its own transaction: a
/// registration completed, a first proof of the mailbox, a password set, an email change completed, a deletion completed.
/// A saga's move keeps its side effects (`effect_outbox`) in its transaction too.
public struct SQLAccountStore: AccountStore {
    let database: any SQLDatabase

    /// The store in `database`, whose schema is created or migrated first.
    public init(database: any SQLDatabase) throws(StoreError) {
        try database.migrate(accountSchema)
        self.database = database
    }

    public func start(_ saga: SagaRecord, account: Account) throws(StoreError) -> SagaStart {
        try database.inTransaction { (db) throws(SQLError) -> SagaStart in
            if let existing = try Self.saga(saga.registrationId, in: db) { return .existing(existing) }
            // The UNIQUE constraint on email decides: a concurrent insert of the same email (or uid)
            // waits for the other transaction, then inserts nothing if that one committed.
            guard try db.execute(Account.insertOrIgnore, account.values) == 1 else {
                // The winner may be this very registration, started concurrently (a redelivery).
                return try Self.saga(saga.registrationId, in: db).map(SagaStart.existing) ?? .emailTaken
            }
            guard try db.execute(SagaRecord.insertOrIgnore, saga.values) == 1 else {
                // This registration started concurrently with another email: undo, and the retry finds it.
                throw SQLError(.transient, "registration \(saga.registrationId) was started concurrently")
            }
            return .started
        }
    }

    public func recordFailed(_ saga: SagaRecord) throws(StoreError) -> SagaRecord {
        try database.inTransaction { (db) throws(SQLError) -> SagaRecord in
            try db.execute(SagaRecord.insertOrIgnore, saga.values)
            guard let stored = try Self.saga(saga.registrationId, in: db) else {
                throw SQLError(.permanent, "saga \(saga.registrationId) vanished while it was recorded")
            }
            return stored
        }
    }

    public func forgetRefusals(recordedBefore date: Date) throws(StoreError) -> Int {
        try database.withSession { (db) throws(SQLError) in
            try db.execute("DELETE FROM sagas WHERE stage = ? AND uid = '' AND updated_at < ?", [SagaStage.failed, date])
        }
    }

    public func saga(_ registrationId: String) throws(StoreError) -> SagaRecord? {
        try database.withSession { (db) throws(SQLError) in try Self.saga(registrationId, in: db) }
    }

    /// Fails with a permanent error, changing nothing, when the account to activate does not exist:
    /// a completed registration must leave an account that can sign in.
    public func save(_ saga: SagaRecord, applying change: AccountChange?, keeping effects: [OutboxMessage]) throws(StoreError) -> Bool {
        try database.inTransaction { (db) throws(SQLError) -> Bool in
            let values = Array(saga.values.dropFirst()) + [saga.registrationId, saga.version - 1]
            guard try db.execute(SagaRecord.compareAndSet, values) == 1 else { return false }
            try SQLOutbox.keep(effects: effects, db)
            switch change {
            case .activate(let uid):
                // The account's revision continues from its registration's last step (each of its commands carried one).
                let activated = try db.query("UPDATE accounts SET status = ?, revision = ? WHERE uid = ? RETURNING verified_at",
                                             [AccountStatus.active, saga.version, uid]) { (row) throws(SQLError) -> Date? in try row[0] }
                guard let verifiedAt = activated.first else { throw SQLError(.permanent, "account \(uid) does not exist to be activated") }
                try Self.announce(AccountEvent(.accountRegistered, uid: uid, at: saga.updatedAt), in: db)
                if verifiedAt != nil { try Self.announce(AccountEvent(.emailVerified, uid: uid, at: saga.updatedAt), in: db) }
            case .delete(let uid):
                try db.execute("DELETE FROM accounts WHERE uid = ?", [uid])
            case nil:
                break
            }
            return true
        }
    }

    public func sagas(in stages: Set<SagaStage>, updatedBefore date: Date) throws(StoreError) -> [SagaRecord] {
        try records(in: stages, updatedBefore: date)
    }

    /// The records of a saga table (its key first, a `stage` and an `updated_at` column) in one of `stages` last moved
    /// before `date`, oldest first.
    func records<Record: TableRecord & Sendable, Stage: RawRepresentable<String> & SQLValueConvertible>(
        in stages: Set<Stage>, updatedBefore date: Date) throws(StoreError) -> [Record] {
        guard !stages.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: stages.count).joined(separator: ", ")
        let sql = Record.select + " WHERE stage IN (\(placeholders)) AND updated_at < ? ORDER BY updated_at, \(Record.columns[0])"
        let values: [any SQLValueConvertible] = stages.sorted { $0.rawValue < $1.rawValue } + [date]
        return try database.withSession { (db) throws(SQLError) in try db.query(sql, values, Record.init) }
    }

    public func update(uid: String, applying update: AccountUpdate) throws(StoreError) {
        try database.inTransaction { (db) throws(SQLError) in try Self.apply(update, to: uid, in: db) }
    }

    public func account(uid: String) throws(StoreError) -> Account? {
        try accounts("WHERE uid = ?", [uid]).first
    }

    public func account(email: String) throws(StoreError) -> Account? {
        try accounts("WHERE email = ?", [email]).first
    }

    public func accounts() throws(StoreError) -> [Account] {
        try accounts("", [])
    }

    /// The accounts matching `filter` (a `WHERE` clause, or empty for all), oldest first.
    private func accounts(_ filter: String, _ values: [any SQLValueConvertible]) throws(StoreError) -> [Account] {
        let sql = "\(Account.select) \(filter) ORDER BY created_at, uid"
        return try database.withSession { (db) throws(SQLError) in try db.query(sql, values, Account.init) }
    }

    /// Keeps `event` in the account database's outbox, in `db`'s transaction: the one of the change it announces.
    static func announce(_ event: AccountEvent, in db: SQLSession) throws(SQLError) {
        try SQLOutbox.keep(event.message, in: SQLOutbox.accountsTable, db)
    }

    static func saga(_ registrationId: String, in db: SQLSession) throws(SQLError) -> SagaRecord? {
        try db.query(SagaRecord.select + " WHERE registration_id = ?", [registrationId], SagaRecord.init).first
    }
}
