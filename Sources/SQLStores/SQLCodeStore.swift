import Accounts
import Domain
import Foundation

/// One-time codes (keyed hashes only, and the nonce of an outstanding code) in one SQL database, table `codes`: one
/// row per email and purpose.
public struct SQLCodeStore: CodeStore {
    private let database: any SQLDatabase

    /// The store in `database`, whose schema is created or migrated first.
    public init(database: any SQLDatabase) throws(StoreError) {
        try database.migrate(Self.schema)
        self.database = database
    }

    /// Concurrent updates of one email and purpose wait for each other (a lock held also while no
    /// row exists yet), so `body`, which may send a code, runs on the record as committed.
    /// Errors `body` throws reach the caller as they are, not retried.
    public func update<T: Sendable>(email: String, purpose: CodePurpose,
                                    _ body: (inout CodeRecord?) throws(StoreError) -> T) throws(StoreError) -> T {
        try database.inTransaction { (db) throws(SQLError) -> T in
            try db.lock("\(purpose.rawValue)|\(email)", in: .codes)
            let stored = try db.query(CodeRecord.select + " WHERE email = ? AND purpose = ?", [email, purpose], CodeRecord.init).first
            var record = stored
            let result = try db.passing { () throws(StoreError) in try body(&record) }
            if let record, record != stored {
                try db.execute(CodeRecord.upsert, record.values(in: db.dialect))
            } else if record == nil, stored != nil {
                try db.execute("DELETE FROM codes WHERE email = ? AND purpose = ?", [email, purpose])
            }
            return result
        }
    }

    @discardableResult
    public func forgetCodes(expiredBefore date: Date) throws(StoreError) -> Int {
        try database.withSession { (db) throws(SQLError) in try db.execute("DELETE FROM codes WHERE expires_at < ?", [date]) }
    }

    /// `sent_at` holds the send times as the dialect keeps a list of dates.
    private static let schema = SQLSchema(
        name: "codes",
        sqlite: [
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
            Self.usedWith,
            Self.resends(real: "REAL"),
        ],
        postgres: [
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
            Self.usedWith,
            Self.resends(real: "DOUBLE PRECISION"),
        ])

    /// Migration 3: a used code records the reply key of the request that used it.
    private static let usedWith = "ALTER TABLE codes ADD COLUMN used_with TEXT;"

    /// Migration 4: an outstanding code is mailed again rather than replaced, so its nonce is kept while it lives
    /// (`pending_nonce` becomes `nonce`) with the requests it was mailed for (`senders`, and those still owed their
    /// email, `unmailed`; comma-separated request ids, which never hold a comma) and its last re-send; its recovery
    /// form's digest beside the digits'. A code of an earlier build whose email was sent has no nonce: it is replaced
    /// once it may be, as before.
    private static func resends(real: String) -> String {
        """
        ALTER TABLE codes RENAME COLUMN pending_nonce TO nonce;
        ALTER TABLE codes ADD COLUMN recovery_digest TEXT;
        ALTER TABLE codes ADD COLUMN resent_at \(real);
        ALTER TABLE codes ADD COLUMN senders TEXT NOT NULL DEFAULT '';
        ALTER TABLE codes ADD COLUMN unmailed TEXT NOT NULL DEFAULT '';
        UPDATE codes SET senders = issued_by, unmailed = CASE WHEN nonce IS NULL THEN '' ELSE issued_by END;
        """
    }
}

extension CodePurpose: SQLValueConvertible {}

/// A code's row; its values depend on the dialect, which keeps `sentAt`.
extension CodeRecord: TableRow {
    static let table = "codes"
    static let columns = ["email", "purpose", "digest", "issued_by", "expires_at", "attempts", "used_by", "sent_at", "nonce", "used_with",
                          "recovery_digest", "resent_at", "senders", "unmailed"]
    static let keyColumnCount = 2

    init(row: SQLRow) throws(SQLError) {
        guard let sentAt = [Date](dateList: row.values[7]) else {
            throw SQLError(.permanent, "column sent_at holds \(row.values[7]), not a list of dates")
        }
        let (senders, unmailed): (String, String) = (try row[12], try row[13])
        self.init(email: try row[0], purpose: try row[1], digest: try row[2], recoveryDigest: try row[10], issuedBy: try row[3],
                  expiresAt: try row[4], attempts: try row[5], usedBy: try row[6], usedWith: try row[9], sentAt: sentAt,
                  resentAt: try row[11], nonce: try row[8], senders: Self.list(senders), unmailed: Self.list(unmailed))
    }

    /// The values of `columns`, with `sentAt` as `dialect` keeps a list of dates.
    func values(in dialect: SQLDialect) -> [any SQLValueConvertible] {
        [email, purpose, digest, issuedBy, expiresAt, attempts, usedBy, dialect.dateList(sentAt), nonce, usedWith,
         recoveryDigest, resentAt, senders.joined(separator: ","), unmailed.joined(separator: ",")]
    }

    /// The request ids of a comma-separated column.
    private static func list(_ text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }
}
