import Domain
import Foundation
import SignIn

/// Refresh tokens (SHA-256 only), their families and pending sign-ins in one PostgreSQL database
/// (tables `refresh_tokens`, `token_families`, `pending_sign_ins`).
public struct PostgresTokenStore: TokenStore {
    private let database: PostgresDatabase

    /// The store in `database`, whose schema is created or migrated first.
    public init(database: PostgresDatabase) throws(StoreError) {
        try database.migrate("tokens", Self.migrations)
        self.database = database
    }

    /// Storing a token again changes nothing, so that a retry after a lost `COMMIT` succeeds.
    public func store(_ token: RefreshToken) throws(StoreError) {
        try database.transaction { (db) throws(PostgresError) in try Self.insert(token, in: db) }
    }

    public func token(digest: String) throws(StoreError) -> RefreshToken? {
        try database.withConnection { (db) throws(PostgresError) in try Self.token(digest, locking: false, in: db) }
    }

    /// The presented token and its family stay locked until the decision is applied, so concurrent
    /// refreshes with one token rotate it once; the others find it rotated.
    public func rotate(digest: String, to next: RefreshToken,
                       deciding decide: (RefreshToken?) -> RotationDecision) throws(StoreError) -> RotationDecision {
        try database.transaction { (db) throws(PostgresError) -> RotationDecision in
            let presented = try Self.token(digest, locking: true, in: db)
            let decision = decide(presented)
            switch decision {
            case .rotate:
                try db.execute("UPDATE refresh_tokens SET replaced_by = $1 WHERE digest = $2", [next.issuedBy, digest])
                try Self.insert(next, in: db)
            case .revokeFamily:
                if let presented {
                    try db.execute("UPDATE token_families SET revoked_at = $1 WHERE family = $2", [next.issuedAt, presented.family])
                }
            case .refuse:
                break
            }
            return decision
        }
    }

    public func revokeAll(uid: String) throws(StoreError) {
        try database.withConnection { (db) throws(PostgresError) in
            try db.execute("UPDATE token_families SET revoked_at = $1 WHERE uid = $2 AND revoked_at IS NULL", [Date(), uid])
        }
    }

    public func recordPending(_ signIn: PendingSignIn) throws(StoreError) {
        try database.withConnection { (db) throws(PostgresError) in
            try db.execute("INSERT INTO pending_sign_ins (request_id, reply_key, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                           [signIn.requestId, signIn.replyKey, signIn.createdAt])
        }
    }

    public func pending(requestId: String) throws(StoreError) -> PendingSignIn? {
        try database.withConnection { (db) throws(PostgresError) in
            try db.query("SELECT request_id, reply_key, created_at FROM pending_sign_ins WHERE request_id = $1", [requestId]) {
                (row) throws(PostgresError) in PendingSignIn(requestId: try row[0], replyKey: try row[1], createdAt: try row[2])
            }.first
        }
    }

    private static func insert(_ token: RefreshToken, in db: PostgresConnection) throws(PostgresError) {
        try db.execute("INSERT INTO token_families (family, uid) VALUES ($1, $2) ON CONFLICT DO NOTHING", [token.family, token.uid])
        try db.execute("""
            INSERT INTO refresh_tokens (digest, family, uid, issued_by, issued_at, expires_at, replaced_by)
            VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (digest) DO NOTHING
            """, [token.digest, token.family, token.uid, token.issuedBy, token.issuedAt, token.expiresAt, token.replacedBy])
    }

    private static func token(_ digest: String, locking: Bool, in db: PostgresConnection) throws(PostgresError) -> RefreshToken? {
        let sql = """
            SELECT t.digest, t.family, t.uid, t.issued_by, t.issued_at, t.expires_at, t.replaced_by, f.revoked_at IS NOT NULL
            FROM refresh_tokens t JOIN token_families f ON f.family = t.family WHERE t.digest = $1
            """ + (locking ? " FOR UPDATE" : "")
        return try db.query(sql, [digest]) { (row) throws(PostgresError) in
            RefreshToken(digest: try row[0], family: try row[1], uid: try row[2], issuedBy: try row[3], issuedAt: try row[4],
                         expiresAt: try row[5], replacedBy: try row[6], familyRevoked: try row[7])
        }.first
    }

    /// The schema, one migration per entry (append only).
    private static let migrations = [
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
    ]
}
