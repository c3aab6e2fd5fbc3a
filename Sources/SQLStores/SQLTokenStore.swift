import Accounts
import Domain
import Foundation

/// Refresh tokens (SHA-256 only), their families and pending sign-ins in one SQL database (tables
/// `refresh_tokens`, `token_families`, `pending_sign_ins`). Families whose tokens have all expired are deleted
/// by the account worker's sweep (`forgetExpiredFamilies`).
public struct SQLTokenStore: TokenStore {
    private let database: any SQLDatabase

    /// The store in `database`, whose schema is created or migrated first.
    public init(database: any SQLDatabase) throws(StoreError) {
        try database.migrate(Self.schema)
        self.database = database
    }

    /// Storing a token again changes nothing, so that a retry after a lost `COMMIT` succeeds.
    public func store(_ token: RefreshToken) throws(StoreError) {
        try database.inTransaction { (db) throws(SQLError) in try Self.insert(token, in: db) }
    }

    public func token(digest: String) throws(StoreError) -> RefreshToken? {
        try database.withSession { (db) throws(SQLError) in try Self.token(digest, locking: false, in: db) }
    }

    /// The presented token and its family stay locked until the decision is applied, so concurrent
    /// refreshes with one token rotate it once; the others find it rotated.
    public func rotate(digest: String, to next: RefreshToken, replyKey: String,
                       deciding decide: (RefreshToken?) -> RotationDecision) throws(StoreError) -> RotationDecision {
        try database.inTransaction { (db) throws(SQLError) -> RotationDecision in
            let presented = try Self.token(digest, locking: true, in: db)
            let decision = decide(presented)
            switch decision {
            case .rotate:
                try db.execute("UPDATE refresh_tokens SET replaced_by = ?, replaced_with = ? WHERE digest = ?",
                               [next.issuedBy, replyKey, digest])
                try Self.insert(next, in: db)
            case .revokeFamily:
                if let presented {
                    try db.execute("UPDATE token_families SET revoked_at = ? WHERE family = ?", [next.issuedAt, presented.family])
                }
            case .refuse:
                break
            }
            return decision
        }
    }

    public func revokeAll(uid: String) throws(StoreError) {
        try database.withSession { (db) throws(SQLError) in
            try db.execute("UPDATE token_families SET revoked_at = ? WHERE uid = ? AND revoked_at IS NULL", [Date(), uid])
        }
    }

    public func family(_ id: String) throws(StoreError) -> TokenFamily? {
        try database.withSession { (db) throws(SQLError) in
            try db.query(Self.familyQuery + " WHERE family = ?", [id], Self.family).first
        }
    }

    public func liveFamilies(uid: String, at now: Date) throws(StoreError) -> [TokenFamily] {
        try database.withSession { (db) throws(SQLError) in
            try db.query(Self.familyQuery + " WHERE uid = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY created_at DESC, family",
                         [uid, now], Self.family)
        }
    }

    @discardableResult
    public func revoke(family id: String, of uid: String) throws(StoreError) -> Bool {
        try database.withSession { (db) throws(SQLError) -> Bool in
            try db.execute("UPDATE token_families SET revoked_at = ? WHERE family = ? AND uid = ? AND revoked_at IS NULL", [Date(), id, uid])
            return try !db.query("SELECT 1 FROM token_families WHERE family = ? AND uid = ?", [id, uid]) { (_) throws(SQLError) in () }.isEmpty
        }
    }

    private static let familyQuery = """
        SELECT family, uid, client_id, created_at, last_used_at, expires_at, revoked_at IS NOT NULL FROM token_families
        """

    private static func family(_ row: SQLRow) throws(SQLError) -> TokenFamily {
        TokenFamily(id: try row[0], uid: try row[1], clientId: try row[2], createdAt: try row[3], lastUsedAt: try row[4],
                    expiresAt: try row[5], revoked: try row[6])
    }

    /// Deletes up to `limit` token families, with their tokens, whose every token expired before `cutoff`: such a
    /// token is refused whether it is found or not, so nothing about it is worth keeping. Returns how many.
    @discardableResult
    public func forgetExpiredFamilies(expiredBefore cutoff: Date, limit: Int) throws(StoreError) -> Int {
        try database.inTransaction { (db) throws(SQLError) -> Int in
            let families = try db.query("SELECT family FROM token_families WHERE expires_at < ? ORDER BY expires_at LIMIT ?",
                                        [cutoff, limit]) { (row) throws(SQLError) -> String in try row[0] }
            for family in families {
                try db.execute("DELETE FROM refresh_tokens WHERE family = ?", [family])
                try db.execute("DELETE FROM token_families WHERE family = ?", [family])
            }
            return families.count
        }
    }

    public func forget(uid: String) throws(StoreError) {
        try database.inTransaction { (db) throws(SQLError) in
            try db.execute("DELETE FROM refresh_tokens WHERE uid = ?", [uid])
            try db.execute("DELETE FROM token_families WHERE uid = ?", [uid])
        }
    }

    @discardableResult
    public func recordPending(_ signIn: PendingSignIn) throws(StoreError) -> PendingSignIn? {
        try database.withSession { (db) throws(SQLError) in
            try db.execute("""
                INSERT INTO pending_sign_ins (request_id, registration_id, email, reply_key, created_at, client_id)
                VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, [signIn.requestId, signIn.registrationId, signIn.email, signIn.replyKey, signIn.createdAt, signIn.clientId])
            return try Self.pending("request_id", signIn.requestId, in: db)
        }
    }

    public func pending(requestId: String) throws(StoreError) -> PendingSignIn? {
        try database.withSession { (db) throws(SQLError) in try Self.pending("request_id", requestId, in: db) }
    }

    public func pending(registrationId: String) throws(StoreError) -> PendingSignIn? {
        try database.withSession { (db) throws(SQLError) in try Self.pending("registration_id", registrationId, in: db) }
    }

    public func forgetPending(email: String) throws(StoreError) {
        try database.withSession { (db) throws(SQLError) in _ = try db.execute("DELETE FROM pending_sign_ins WHERE email = ?", [email]) }
    }

    @discardableResult
    public func forgetPending(recordedBefore date: Date) throws(StoreError) -> Int {
        try database.withSession { (db) throws(SQLError) in try db.execute("DELETE FROM pending_sign_ins WHERE created_at < ?", [date]) }
    }

    /// The pending sign-in whose `column` (`request_id` or `registration_id`) is `value`. Rows from
    /// before registration ids were the server's have no email, so they match no registration.
    private static func pending(_ column: String, _ value: String, in db: SQLSession) throws(SQLError) -> PendingSignIn? {
        let sql = "SELECT request_id, registration_id, email, reply_key, created_at, client_id FROM pending_sign_ins WHERE \(column) = ?"
        return try db.query(sql, [value]) { (row) throws(SQLError) in
            PendingSignIn(requestId: try row[0], registrationId: try row[1], email: try row[2] ?? "",
                          replyKey: try row[3], createdAt: try row[4], clientId: try row[5])
        }.first
    }

    private static func insert(_ token: RefreshToken, in db: SQLSession) throws(SQLError) {
        try db.execute("""
            INSERT INTO token_families (family, uid, expires_at, client_id, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """, [token.family, token.uid, token.expiresAt, token.clientId, token.issuedAt, token.issuedAt])
        try db.execute("UPDATE token_families SET expires_at = ? WHERE family = ? AND expires_at < ?",
                       [token.expiresAt, token.family, token.expiresAt])
        try db.execute("UPDATE token_families SET last_used_at = ? WHERE family = ? AND last_used_at < ?",
                       [token.issuedAt, token.family, token.issuedAt])
        try db.execute("""
            INSERT INTO refresh_tokens (digest, family, uid, issued_by, issued_at, expires_at, replaced_by, replaced_with)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (digest) DO NOTHING
            """, [token.digest, token.family, token.uid, token.issuedBy, token.issuedAt, token.expiresAt, token.replacedBy,
                  token.replacedWith])
    }

    private static func token(_ digest: String, locking: Bool, in db: SQLSession) throws(SQLError) -> RefreshToken? {
        let sql = """
            SELECT t.digest, t.family, t.uid, t.issued_by, t.issued_at, t.expires_at, t.replaced_by, f.revoked_at IS NOT NULL,
                   t.replaced_with, f.client_id
            FROM refresh_tokens t JOIN token_families f ON f.family = t.family WHERE t.digest = ?
            """ + (locking ? db.dialect.lockingClause : "")
        return try db.query(sql, [digest]) { (row) throws(SQLError) in
            RefreshToken(digest: try row[0], family: try row[1], uid: try row[2], issuedBy: try row[3], issuedAt: try row[4],
                         expiresAt: try row[5], replacedBy: try row[6], replacedWith: try row[8], familyRevoked: try row[7],
                         clientId: try row[9])
        }.first
    }

    private static let schema = SQLSchema(
        name: "tokens",
        sqlite: [
            """
            CREATE TABLE token_families (
                family TEXT PRIMARY KEY NOT NULL,
                uid TEXT NOT NULL,
                revoked_at REAL
            ) STRICT;
            CREATE INDEX token_families_by_uid ON token_families (uid);
            CREATE TABLE refresh_tokens (
                digest TEXT PRIMARY KEY NOT NULL,
                family TEXT NOT NULL REFERENCES token_families (family),
                uid TEXT NOT NULL,
                issued_by TEXT NOT NULL,
                issued_at REAL NOT NULL,
                expires_at REAL NOT NULL,
                replaced_by TEXT
            ) STRICT;
            CREATE TABLE pending_sign_ins (
                request_id TEXT PRIMARY KEY NOT NULL,
                reply_key TEXT NOT NULL,
                created_at REAL NOT NULL
            ) STRICT;
            """,
            Self.serverRegistrationIds(collation: ""),
            Self.replacedWith,
            Self.familyExpiry(type: "REAL"),
            Self.sessions(type: "REAL"),
        ],
        postgres: [
            """
            CREATE TABLE token_families (
                family TEXT COLLATE "C" PRIMARY KEY,
                uid TEXT COLLATE "C" NOT NULL,
                revoked_at DOUBLE PRECISION
            );
            CREATE INDEX token_families_by_uid ON token_families (uid);
            CREATE TABLE refresh_tokens (
                digest TEXT COLLATE "C" PRIMARY KEY,
                family TEXT COLLATE "C" NOT NULL REFERENCES token_families (family),
                uid TEXT COLLATE "C" NOT NULL,
                issued_by TEXT NOT NULL,
                issued_at DOUBLE PRECISION NOT NULL,
                expires_at DOUBLE PRECISION NOT NULL,
                replaced_by TEXT
            );
            CREATE TABLE pending_sign_ins (
                request_id TEXT COLLATE "C" PRIMARY KEY,
                reply_key TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL
            );
            """,
            Self.serverRegistrationIds(collation: #" COLLATE "C""#),
            Self.replacedWith,
            Self.familyExpiry(type: "DOUBLE PRECISION"),
            Self.sessions(type: "DOUBLE PRECISION"),
        ])

    /// Migration 5: a family is a session its owner sees (`GET /me/sessions`): the client it signed in with (kept by a
    /// pending sign-in until its registration ends), when it signed in and when it was last refreshed (for earlier
    /// families, their first and latest tokens' issue times).
    private static func sessions(type: String) -> String {
        """
        ALTER TABLE token_families ADD COLUMN client_id TEXT;
        ALTER TABLE pending_sign_ins ADD COLUMN client_id TEXT;
        ALTER TABLE token_families ADD COLUMN created_at \(type);
        ALTER TABLE token_families ADD COLUMN last_used_at \(type);
        UPDATE token_families SET
            created_at = COALESCE((SELECT MIN(t.issued_at) FROM refresh_tokens t WHERE t.family = token_families.family), 0),
            last_used_at = COALESCE((SELECT MAX(t.issued_at) FROM refresh_tokens t WHERE t.family = token_families.family), 0);
        """
    }

    /// Migration 3: a rotated token records the reply key of the request that rotated it.
    private static let replacedWith = "ALTER TABLE refresh_tokens ADD COLUMN replaced_with TEXT;"

    /// Migration 4: a family records when its newest token expires, so that expired families are found by an index.
    private static func familyExpiry(type: String) -> String {
        """
        ALTER TABLE token_families ADD COLUMN expires_at \(type);
        UPDATE token_families SET expires_at = (SELECT MAX(t.expires_at) FROM refresh_tokens t WHERE t.family = token_families.family);
        UPDATE token_families SET expires_at = 0 WHERE expires_at IS NULL;
        CREATE INDEX token_families_by_expiry ON token_families (expires_at);
        """
    }

    /// Migration 2: a pending sign-in records the registration id the server chose and the email of its
    /// code (earlier rows keep their request id as registration id and have no email).
    private static func serverRegistrationIds(collation: String) -> String {
        """
        ALTER TABLE pending_sign_ins ADD COLUMN registration_id TEXT\(collation);
        ALTER TABLE pending_sign_ins ADD COLUMN email TEXT;
        UPDATE pending_sign_ins SET registration_id = request_id;
        CREATE UNIQUE INDEX pending_sign_ins_by_registration ON pending_sign_ins (registration_id);
        """
    }
}
