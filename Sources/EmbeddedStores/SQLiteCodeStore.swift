import Domain
import Foundation
import Verification

/// One-time codes (keyed hashes only) in one SQLite file (e.g. `<data>/codes.sqlite`), one row per
/// email and purpose.
public struct SQLiteCodeStore: CodeStore {
    private let database: SQLiteDatabase

    /// Opens the store at `path`, creating and migrating the file as needed.
    public init(path: String) throws(StoreError) {
        database = try SQLiteDatabase(path: path, migrations: Self.migrations)
    }

    public func update<T: Sendable>(email: String, purpose: CodePurpose,
                                    _ body: (inout CodeRecord?) throws(StoreError) -> T) throws(StoreError) -> T {
        try database.transaction { (db) throws(StoreError) -> T in
            let sql = CodeRecord.select + " WHERE email = ? AND purpose = ?"
            let stored = try db.query(sql, [email, purpose], CodeRecord.init).first
            var record = stored
            let result = try body(&record)
            if let record, record != stored {
                try db.execute(CodeRecord.insertOrReplace, record.values)
            } else if record == nil, stored != nil {
                try db.execute("DELETE FROM codes WHERE email = ? AND purpose = ?", [email, purpose])
            }
            return result
        }
    }

    /// The schema, one migration per entry (append only).
    private static let migrations = [
        """
        CREATE TABLE codes (
            email TEXT NOT NULL,
            purpose TEXT NOT NULL,
            digest TEXT NOT NULL,
            issued_by TEXT NOT NULL,
            expires_at REAL NOT NULL,
            attempts INTEGER NOT NULL,
            used_by TEXT,
            sent_at TEXT NOT NULL,
            PRIMARY KEY (email, purpose)
        ) STRICT;
        """,
        "ALTER TABLE codes ADD COLUMN pending_nonce TEXT;",
    ]
}

extension CodePurpose: SQLiteValueConvertible {}

extension CodeRecord: TableRecord {
    static let table = "codes"
    static let columns = ["email", "purpose", "digest", "issued_by", "expires_at", "attempts", "used_by", "sent_at", "pending_nonce"]

    init(row: SQLiteRow) throws(StoreError) {
        let sent: String = try row[7]
        self.init(email: try row[0], purpose: try row[1], digest: try row[2], issuedBy: try row[3], expiresAt: try row[4],
                  attempts: try row[5], usedBy: try row[6],
                  sentAt: sent.split(separator: ",").compactMap { Double($0) }.map(Date.init(timeIntervalSince1970:)),
                  pendingNonce: try row[8])
    }

    /// `sent_at` holds the send times as comma-separated Unix seconds.
    var values: [any SQLiteValueConvertible] {
        [email, purpose, digest, issuedBy, expiresAt, attempts, usedBy,
         sentAt.map { String($0.timeIntervalSince1970) }.joined(separator: ","), pendingNonce]
    }
}
