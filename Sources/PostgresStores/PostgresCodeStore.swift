import Domain
import Foundation
import Verification

/// One-time codes (keyed hashes only) in one PostgreSQL database, table `codes`: one row per email
/// and purpose.
public struct PostgresCodeStore: CodeStore {
    private let database: PostgresDatabase

    /// The store in `database`, whose schema is created or migrated first.
    public init(database: PostgresDatabase) throws(StoreError) {
        try database.migrate("codes", Self.migrations)
        self.database = database
    }

    /// Concurrent updates of one email and purpose wait for each other (an advisory lock, held also
    /// while no row exists yet), so `body`, which may send a code, runs on the record as committed.
    /// Errors `body` throws reach the caller as they are, not retried.
    public func update<T: Sendable>(email: String, purpose: CodePurpose,
                                    _ body: (inout CodeRecord?) throws(StoreError) -> T) throws(StoreError) -> T {
        try database.transaction { (db) throws(PostgresError) -> T in
            try db.lock("\(purpose.rawValue)|\(email)", in: .codes)
            let stored = try db.query(CodeRecord.select + " WHERE email = $1 AND purpose = $2", [email, purpose], CodeRecord.init).first
            var record = stored
            let result = try db.passing { () throws(StoreError) in try body(&record) }
            if let record, record != stored {
                try db.execute(CodeRecord.upsert, record.values)
            } else if record == nil, stored != nil {
                try db.execute("DELETE FROM codes WHERE email = $1 AND purpose = $2", [email, purpose])
            }
            return result
        }
    }

    /// The schema, one migration per entry (append only).
    private static let migrations = [
        """
        CREATE TABLE codes (
            email TEXT COLLATE "C" NOT NULL,
            purpose TEXT COLLATE "C" NOT NULL,
            digest TEXT NOT NULL,
            issued_by TEXT NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL,
            attempts INTEGER NOT NULL,
            used_by TEXT,
            sent_at DOUBLE PRECISION[] NOT NULL,
            PRIMARY KEY (email, purpose)
        );
        """,
        "ALTER TABLE codes ADD COLUMN pending_nonce TEXT;",
    ]
}

extension CodePurpose: PostgresValueConvertible {}

extension CodeRecord: PostgresRecord {
    static let table = "codes"
    static let columns = ["email", "purpose", "digest", "issued_by", "expires_at", "attempts", "used_by", "sent_at", "pending_nonce"]
    static let keyColumnCount = 2

    init(row: PostgresRow) throws(PostgresError) {
        self.init(email: try row[0], purpose: try row[1], digest: try row[2], issuedBy: try row[3], expiresAt: try row[4],
                  attempts: try row[5], usedBy: try row[6], sentAt: try row[7],
                  pendingNonce: try row[8])
    }

    var values: [any PostgresValueConvertible] { [email, purpose, digest, issuedBy, expiresAt, attempts, usedBy, sentAt, pendingNonce] }
}
