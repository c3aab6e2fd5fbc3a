import Accounts
import Domain
import Foundation

/// The operator's changes to accounts, each with its announcement in the account outbox, in one transaction.
extension SQLAccountStore: OperatorStore {
    public func apply(_ change: OperatorChange, to uid: String, announcing event: AccountEvent) throws(StoreError) -> Bool {
        try database.inTransaction { (db) throws(SQLError) -> Bool in
            let (from, to): ([AccountStatus], AccountStatus?) = switch change {
            case .disable: ([.active], .disabled)
            case .enable: ([.disabled], .active)
            case .none: ([.pending, .active, .disabled, .deleting], nil)
            case .unlock, .dropPassword: ([.active, .disabled], nil)
            }
            // The account's row first, locked until the commit: a deletion or a change beginning concurrently waits.
            guard let status = try db.query("SELECT status FROM accounts WHERE uid = ?" + db.dialect.lockingClause, [uid], {
                (row) throws(SQLError) -> AccountStatus in try row[0]
            }).first, from.contains(status) else { return false }
            if let to { try db.execute("UPDATE accounts SET status = ? WHERE uid = ?", [to, uid]) }
            switch change {
            case .unlock:
                for table in ["sign_in_failures", "code_failures"] { try db.execute("DELETE FROM \(table) WHERE uid = ?", [uid]) }
            case .disable(let cutoff):
                try Self.apply(AccountUpdate(endsSessionsAt: cutoff), to: uid, in: db)
            case .dropPassword(let cutoff):
                try db.execute("UPDATE accounts SET password_hash = '' WHERE uid = ?", [uid])
                try Self.apply(AccountUpdate(endsSessionsAt: cutoff), to: uid, in: db)
            case .none, .enable:
                break
            }
            try Self.announce(event, in: db)
            return true
        }
    }
}
