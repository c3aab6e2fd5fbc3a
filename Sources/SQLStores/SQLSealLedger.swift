import Accounts
import Domain
import Foundation

/// The request ids whose seals were used (table `used_seals` of the account database), shared by every replica.
public struct SQLSealLedger: SealLedger {
    private let database: any SQLDatabase

    /// The ledger in `database`, the account database, whose schema is created or migrated first.
    public init(database: any SQLDatabase) throws(StoreError) {
        try database.migrate(accountSchema)
        self.database = database
    }

    /// The first of concurrent claims inserts; the others wait for its commit and compare its digest.
    public func claim(requestId: String, digest: String, at date: Date) throws(StoreError) -> Bool {
        try database.inTransaction { (db) throws(SQLError) -> Bool in
            try db.execute("INSERT INTO used_seals (request_id, digest, used_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                           [requestId, digest, date])
            let used = try db.query("SELECT digest FROM used_seals WHERE request_id = ?", [requestId]) {
                (row) throws(SQLError) -> String in try row[0]
            }
            return used.first == digest
        }
    }

    public func forget(claimedBefore date: Date) throws(StoreError) -> Int {
        try database.inTransaction { (db) throws(SQLError) -> Int in
            try db.execute("DELETE FROM used_seals WHERE used_at < ?", [date])
        }
    }
}
