import Foundation
import Domain
import Registration

/// Accounts and registration sagas in one SQLite file (e.g. `<data>/accounts.sqlite`), so that a saga
/// step and its account change commit together. Several processes may share the file.
public struct SQLiteAccountStore: AccountStore {
    let database: SQLiteDatabase

    /// Opens the store at `path`, creating and migrating the file as needed.
    public init(path: String) throws(StoreError) {
        database = try SQLiteDatabase(path: path, migrations: accountStoreMigrations)
    }

    public func start(_ saga: SagaRecord, account: Account) throws(StoreError) -> SagaStart {
        try database.transaction { (db) throws(StoreError) -> SagaStart in
            if let existing = try Self.saga(saga.registrationId, in: &db) { return .existing(existing) }
            // The UNIQUE index on email decides, also against writers in other processes.
            let inserted = try db.execute(Account.insert + " ON CONFLICT (email) DO NOTHING", account.values)
            guard inserted == 1 else { return .emailTaken }
            try db.execute(SagaRecord.insert, saga.values)
            return .started
        }
    }

    public func recordFailed(_ saga: SagaRecord) throws(StoreError) -> SagaRecord {
        try database.transaction { (db) throws(StoreError) -> SagaRecord in
            try db.execute(SagaRecord.insert + " ON CONFLICT (registration_id) DO NOTHING", saga.values)
            guard let stored = try Self.saga(saga.registrationId, in: &db) else {
                throw StoreError(.permanent, "saga \(saga.registrationId) vanished while it was recorded")
            }
            return stored
        }
    }

    public func saga(_ registrationId: String) throws(StoreError) -> SagaRecord? {
        try database.withConnection { (db) throws(StoreError) in try Self.saga(registrationId, in: &db) }
    }

    /// Fails with a permanent error, changing nothing, when the account to activate does not exist:
    /// a completed registration must leave an account that can sign in.
    public func save(_ saga: SagaRecord, applying change: AccountChange?) throws(StoreError) -> Bool {
        try database.transaction { (db) throws(StoreError) -> Bool in
            let values = Array(saga.values.dropFirst()) + [saga.registrationId, saga.version - 1]
            guard try db.execute(SagaRecord.compareAndSet, values) == 1 else { return false }
            switch change {
            case .activate(let uid):
                let activated = try db.execute("UPDATE accounts SET status = ? WHERE uid = ?", [AccountStatus.active, uid])
                guard activated == 1 else { throw StoreError(.permanent, "account \(uid) does not exist to be activated") }
            case .delete(let uid):
                try db.execute("DELETE FROM accounts WHERE uid = ?", [uid])
            case nil:
                break
            }
            return true
        }
    }

    public func sagas(in stages: Set<SagaStage>, updatedBefore date: Date) throws(StoreError) -> [SagaRecord] {
        guard !stages.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: stages.count).joined(separator: ", ")
        let sql = SagaRecord.select + " WHERE stage IN (\(placeholders)) AND updated_at < ? ORDER BY updated_at, registration_id"
        let values: [any SQLiteValueConvertible] = Array(stages) + [date]
        return try database.withConnection { (db) throws(StoreError) in try db.query(sql, values, SagaRecord.init) }
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
    private func accounts(_ filter: String, _ values: [any SQLiteValueConvertible]) throws(StoreError) -> [Account] {
        let sql = "\(Account.select) \(filter) ORDER BY created_at, uid"
        return try database.withConnection { (db) throws(StoreError) in try db.query(sql, values, Account.init) }
    }

    private static func saga(_ registrationId: String, in db: inout SQLiteConnection) throws(StoreError) -> SagaRecord? {
        try db.query(SagaRecord.select + " WHERE registration_id = ?", [registrationId], SagaRecord.init).first
    }
}
