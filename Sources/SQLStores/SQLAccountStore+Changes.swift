import Accounts
import Domain
import Foundation

/// Sign-in failures (tables `sign_in_failures` and `code_failures`) and account changes (table
/// `account_changes`), in the account database so that a change and its account update commit in one transaction.
extension SQLAccountStore: AccountChangeStore {
    /// Concurrent updates of one account's failures of one kind wait for each other (a lock per uid,
    /// held also while no row exists yet), so no failure is lost.
    public func updateFailures<T: Sendable>(uid: String, of kind: FailureKind,
                                            _ body: (inout SignInFailures) -> T) throws(StoreError) -> T {
        let (table, space): (String, KeyLockSpace) = switch kind {
        case .password: ("sign_in_failures", .signInFailures)
        case .code: ("code_failures", .codeFailures)
        }
        return try database.inTransaction { (db) throws(SQLError) -> T in
            try db.lock(uid, in: space)
            let stored = try db.query("SELECT consecutive, locked_until FROM \(table) WHERE uid = ?", [uid]) {
                (row) throws(SQLError) in SignInFailures(consecutive: try row[0], lockedUntil: try row[1])
            }.first ?? SignInFailures()
            var failures = stored
            let result = body(&failures)
            if failures != stored {
                try db.execute("""
                    INSERT INTO \(table) (uid, consecutive, locked_until) VALUES (?, ?, ?)
                    ON CONFLICT (uid) DO UPDATE SET consecutive = EXCLUDED.consecutive, locked_until = EXCLUDED.locked_until
                    """, [uid, failures.consecutive, failures.lockedUntil])
            }
            return result
        }
    }

    public func replacePasswordHash(uid: String, from old: String, to new: String) throws(StoreError) -> Bool {
        try database.withSession { (db) throws(SQLError) in
            try db.execute("UPDATE accounts SET password_hash = ? WHERE uid = ? AND password_hash = ?", [new, uid, old]) == 1
        }
    }

    public func change(requestId: String) throws(StoreError) -> AccountChangeRecord? {
        try database.withSession { (db) throws(SQLError) in try Self.change(requestId, in: db) }
    }

    /// The UNIQUE constraint on `accounts.email` decides whether the new email is free, also against
    /// a concurrent change or registration taking it; the account's row, read locked, whether it still holds the
    /// credentials the change was authenticated against (an operator's change waits for this one's commit, or wins).
    public func begin(_ record: AccountChangeRecord, applying update: AccountUpdate) throws(StoreError) -> AccountChangeStart {
        try database.inTransaction { (db) throws(SQLError) -> AccountChangeStart in
            if let existing = try Self.change(record.requestId, in: db) { return .existing(existing) }
            if let authenticated = update.authenticatedAgainst {
                let sql = "SELECT status, password_hash FROM accounts WHERE uid = ?" + db.dialect.lockingClause
                let current = try db.query(sql, [record.uid]) { (row) throws(SQLError) -> (AccountStatus, String) in (try row[0], try row[1]) }.first
                guard let current, current == (.active, authenticated) else { return .credentialsChanged }
            }
            do throws(SQLError) {
                try db.savepoint { () throws(SQLError) in try Self.apply(update, to: record.uid, in: db) }
            } catch where error.isUniqueViolation {
                return .emailTaken
            }
            var stored = record
            if record.sendsCommand { stored.revision = try Self.nextRevision(of: record.uid, in: db) }
            guard try db.execute(AccountChangeRecord.insertOrIgnore, stored.values) == 1 else {
                // This request began concurrently (a redelivery): undo, and the retry finds its record.
                throw SQLError(.transient, "account change \(record.requestId) was begun concurrently")
            }
            return .started(stored)
        }
    }

    public func save(_ record: AccountChangeRecord, applying update: AccountUpdate?, keeping effects: [OutboxMessage]) throws(StoreError)
        -> AccountChangeRecord {
        try database.inTransaction { (db) throws(SQLError) -> AccountChangeRecord in
            try SQLOutbox.keep(effects: effects, db)
            var stored = record
            let previous = try Self.change(record.requestId, in: db)?.stage
            if record.sendsCommand, previous != record.stage {
                stored.revision = try Self.nextRevision(of: record.uid, in: db)
            }
            try db.execute(AccountChangeRecord.upsert, stored.values)
            if let update { try Self.apply(update, to: record.uid, in: db) }
            if record.kind == .changeEmail, record.stage == .completed, previous != .completed {
                try Self.announce(AccountEvent(.emailChanged, uid: record.uid, at: record.updatedAt, changed: [.email]), in: db)
            }
            return stored
        }
    }

    public func changes(in stage: AccountChangeStage, updatedBefore date: Date) throws(StoreError) -> [AccountChangeRecord] {
        let sql = AccountChangeRecord.select + " WHERE stage = ? AND updated_at < ? ORDER BY updated_at, request_id"
        return try database.withSession { (db) throws(SQLError) in try db.query(sql, [stage, date], AccountChangeRecord.init) }
    }

    public func changes(uid: String) throws(StoreError) -> [AccountChangeRecord] {
        let sql = AccountChangeRecord.select + " WHERE uid = ? ORDER BY updated_at, request_id"
        return try database.withSession { (db) throws(SQLError) in try db.query(sql, [uid], AccountChangeRecord.init) }
    }

    private static func change(_ requestId: String, in db: SQLSession) throws(SQLError) -> AccountChangeRecord? {
        try db.query(AccountChangeRecord.select + " WHERE request_id = ?", [requestId], AccountChangeRecord.init).first
    }

    /// Applies the columns `update` sets: the password hash, the email, the sessions' cut-off, the first proof; a
    /// password set and a first proof are announced (`PasswordChanged`, `EmailVerified`), an email by its change's
    /// completion (it may yet be set back).
    static func apply(_ update: AccountUpdate, to uid: String, in db: SQLSession) throws(SQLError) {
        var assignments: [String] = []
        var values: [any SQLValueConvertible] = []
        if let hash = update.passwordHash { assignments.append("password_hash = ?"); values.append(hash) }
        if let email = update.email { assignments.append("email = ?"); values.append(email) }
        if let cutoff = update.endsSessionsAt {
            // As `Account.sessionCutoff(changedAt:)`: the change's time, or a tick after the last cut-off.
            assignments.append("not_before = CASE WHEN not_before IS NULL OR not_before + ? < ? THEN ? ELSE not_before + ? END")
            values += [Account.sessionTick, cutoff, cutoff, Account.sessionTick]
        }
        let date = update.endsSessionsAt ?? update.provesMailboxAt ?? Date()
        if !assignments.isEmpty {
            let changed = try db.execute("UPDATE accounts SET \(assignments.joined(separator: ", ")) WHERE uid = ?", values + [uid])
            guard changed == 1 else { throw SQLError(.permanent, "account \(uid) does not exist to be changed") }
        }
        if update.passwordHash != nil { try announce(AccountEvent(.passwordChanged, uid: uid, at: date, changed: [.password]), in: db) }
        if let proof = update.provesMailboxAt {
            // The first proof only: its time, and the request that made it.
            let proven = try db.execute("UPDATE accounts SET verified_at = ?, verified_by = ? WHERE uid = ? AND verified_at IS NULL",
                                        [proof, update.provenBy, uid])
            if proven == 1 { try announce(AccountEvent(.emailVerified, uid: uid, at: proof), in: db) }
        }
    }

    /// Whether an email change of `uid` is in flight (its profile following, or being set back).
    static func emailChangeInFlight(uid: String, in db: SQLSession) throws(SQLError) -> Bool {
        let sql = "SELECT request_id FROM account_changes WHERE uid = ? AND stage IN (?, ?)"
        return try !db.query(sql, [uid, AccountChangeStage.awaitingProfile, AccountChangeStage.compensating],
                             { (row) throws(SQLError) -> String in try row[0] }).isEmpty
    }

    /// Takes the account's next revision, for a saga step that sends a command.
    static func nextRevision(of uid: String, in db: SQLSession) throws(SQLError) -> Int {
        guard let revision = try takeRevision(of: uid, in: db) else { throw SQLError(.permanent, "account \(uid) does not exist to take a revision") }
        return revision
    }

    /// The account's next revision, taken (its row locked until the transaction ends), or nil when there is no such account.
    static func takeRevision(of uid: String, in db: SQLSession) throws(SQLError) -> Int? {
        try db.query("UPDATE accounts SET revision = revision + 1 WHERE uid = ? RETURNING revision", [uid], {
            (row) throws(SQLError) -> Int in try row[0]
        }).first
    }
}

extension AccountChangeKind: SQLValueConvertible {}
extension AccountChangeStage: SQLValueConvertible {}

extension AccountChangeRecord: TableRecord {
    static let table = "account_changes"
    static let columns = ["request_id", "uid", "kind", "old_email", "new_email", "stage", "failure_reason", "failure_message", "updated_at",
                          "revision"]

    init(row: SQLRow) throws(SQLError) {
        let reason: ReasonCode? = try row[6]
        let message: String? = try row[7]
        self.init(requestId: try row[0], uid: try row[1], kind: try row[2], oldEmail: try row[3], newEmail: try row[4],
                  stage: try row[5], failure: reason.map { Failure($0, message ?? "") }, updatedAt: try row[8], revision: try row[9])
    }

    var values: [any SQLValueConvertible] {
        [requestId, uid, kind, oldEmail, newEmail, stage, failure?.reason, failure?.message, updatedAt, revision]
    }
}
