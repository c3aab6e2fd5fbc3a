import Domain
import Foundation
import Registration

/// Passwords and sealed boxes for sign-in, implemented with libsodium outside the domain.
public protocol CredentialVault: PasswordVault {
    /// Whether `password` matches the encoded hash; false for an empty or malformed hash. Takes one hash's time.
    func verify(_ password: String, against hash: String) -> Bool
    /// Whether the hash was made with other parameters than today's, so it is replaced at the next sign-in.
    func needsRehash(_ hash: String) -> Bool
}

/// Access and refresh tokens, implemented with libsodium outside the domain.
public protocol TokenMinter: Sendable {
    /// A signed access token (EdDSA JWT) with the claims `sub`, `iat`, `exp` and `jti`.
    func accessToken(subject: String, id: String, issuedAt: Date, expiresAt: Date) throws -> String
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
    /// The uid (`sub`) and issue time (`iat`) of `token` if it verifies at `now`: signed by a published key under
    /// its `kid`, of the configured issuer and audience, not expired; else nil. Whether the account still admits
    /// a session issued then is the account's rule (``Account/admitsSession(issuedAt:)``).
    func subject(of token: String, at now: Date) -> AccessTokenSubject?
}

/// Who a verified access token names, and when it was issued (to the millisecond).
public struct AccessTokenSubject: Sendable, Equatable {
    public var uid: String
    public var issuedAt: Date

    public init(uid: String, issuedAt: Date) {
        self.uid = uid
        self.issuedAt = issuedAt
    }
}
