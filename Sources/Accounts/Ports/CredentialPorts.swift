import Domain
import Foundation

/// Passwords and sealed boxes for sign-in, implemented with libsodium outside the domain.
public protocol CredentialVault: PasswordVault {
    /// Whether `password` matches the encoded hash; false for an empty or malformed hash. Takes one hash's time.
    func verify(_ password: String, against hash: String) -> Bool
    /// Whether the hash was made with other parameters than today's, so it is replaced at the next sign-in.
    func needsRehash(_ hash: String) -> Bool
}

/// Access and refresh tokens, implemented with libsodium outside the domain.
public protocol TokenMinter: Sendable {
    /// A signed access token (EdDSA JWT) with the claims `sub`, `iat`, `exp`, `jti` and, when minted for a session (a
    /// refresh-token family), `sid`.
    func accessToken(subject: String, id: String, session: String?, issuedAt: Date, expiresAt: Date) throws -> String
    /// A new opaque refresh token (random, URL-safe).
    func newRefreshToken() -> String
    /// What the token store keeps of a refresh token: its SHA-256 (hex).
    func digest(of refreshToken: String) -> String
}

/// Accounts with what sign-in adds to them: failure counts and password rehashing.
public protocol CredentialStore: AccountStore {
    /// Runs `body` on the `kind` failures of `uid` in one transaction and saves what it leaves.
    func updateFailures<T: Sendable>(uid: String, of kind: FailureKind, _ body: (inout SignInFailures) -> T) throws(StoreError) -> T
    /// Replaces the password hash of `uid` with `new` if it is still `old` (a compare-and-swap, so that a
    /// rehash never overwrites a concurrent password change); whether it did.
    @discardableResult
    func replacePasswordHash(uid: String, from old: String, to new: String) throws(StoreError) -> Bool
}

extension CredentialStore {
    /// Runs `body` on the password failures of `uid`.
    public func updateFailures<T: Sendable>(uid: String, _ body: (inout SignInFailures) -> T) throws(StoreError) -> T {
        try updateFailures(uid: uid, of: .password, body)
    }
}

/// Checks Bearer access tokens, implemented with libsodium outside the domain.
public protocol AccessTokenCheck: Sendable {
    /// The uid (`sub`), issue time (`iat`, to the millisecond) and session (`sid`) of `token` if it verifies at `now`:
    /// signed by a published key under its `kid`, of the configured issuer and audience, not expired; else nil. Whether
    /// it still counts is the ``SessionGate``'s to say.
    func subject(of token: String, at now: Date) -> AccessTokenSubject?
}

/// Who a verified access token names, when it was issued (to the millisecond), and its session.
public struct AccessTokenSubject: Sendable, Equatable {
    public var uid: String
    public var issuedAt: Date
    /// The refresh-token family it was minted with; nil for a token minted before access tokens named their session.
    public var session: String?

    public init(uid: String, issuedAt: Date, session: String? = nil) {
        self.uid = uid
        self.issuedAt = issuedAt
        self.session = session
    }
}
