import Domain
import Foundation

/// A refresh token as stored: its digest only, its family (every token rotated from one sign-in),
/// and the request that rotated it, once rotated.
public struct RefreshToken: Sendable, Equatable {
    public var digest: String
    public var family: String
    public var uid: String
    /// The request that issued this token.
    public var issuedBy: String
    public var issuedAt: Date
    public var expiresAt: Date
    /// The request that rotated this token away.
    public var replacedBy: String?
    /// The reply key of the request that rotated it (its new pair was sealed to that key).
    public var replacedWith: String?
    /// Whether the family was revoked (reuse detected, password changed).
    public var familyRevoked: Bool

    public init(digest: String, family: String, uid: String, issuedBy: String, issuedAt: Date, expiresAt: Date,
                replacedBy: String? = nil, replacedWith: String? = nil, familyRevoked: Bool = false) {
        self.digest = digest
        self.family = family
        self.uid = uid
        self.issuedBy = issuedBy
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.replacedBy = replacedBy
        self.replacedWith = replacedWith
        self.familyRevoked = familyRevoked
    }
}

/// Why a refresh token was refused. Internal: the requester sees only `invalid_credentials`.
public enum TokenRejection: String, Sendable, Equatable {
    case unknown = "token_unknown"
    case expired = "token_expired"
    case revoked = "token_revoked"
    /// A rotated token came back: its whole family is revoked.
    case reused = "token_reused"
}

/// What a refresh does to the presented token.
public enum RotationDecision: Sendable, Equatable {
    /// Mark it replaced by the new token's request (and its reply key) and store the new token.
    case rotate
    /// Revoke its family and issue nothing.
    case revokeFamily
    /// Issue nothing.
    case refuse(TokenRejection)

    /// The decision for `token` (as stored now) presented by `requestId` answered to `replyKey` at
    /// `now`. The request that rotated a token may rotate it again (a redelivery) with the same reply
    /// key; anyone else presenting it, or that request id with another reply key, is a reuse.
    public static func on(_ token: RefreshToken?, requestId: String, replyKey: String, at now: Date) -> RotationDecision {
        guard let token else { return .refuse(.unknown) }
        if token.familyRevoked { return .refuse(.revoked) }
        if now >= token.expiresAt { return .refuse(.expired) }
        guard let replacedBy = token.replacedBy else { return .rotate }
        return replacedBy == requestId && token.replacedWith == replyKey ? .rotate : .revokeFamily
    }
}

/// A sign-in by email code that is registering its account; answered when the registration ends.
public struct PendingSignIn: Sendable, Equatable {
    /// The token request's id.
    public var requestId: String
    /// The id of the registration it started, chosen by the server (never the client's request id).
    public var registrationId: String
    /// The email (normalised) the code was verified for: the only email its registration may have.
    public var email: String
    public var replyKey: String
    public var createdAt: Date

    public init(requestId: String, registrationId: String, email: String, replyKey: String, createdAt: Date) {
        self.requestId = requestId
        self.registrationId = registrationId
        self.email = email
        self.replyKey = replyKey
        self.createdAt = createdAt
    }
}

/// Refresh tokens (hashed) and sign-ins waiting for their registration.
public protocol TokenStore: Sendable {
    /// Stores a new token, creating its family if needed.
    func store(_ token: RefreshToken) throws(StoreError)
    func token(digest: String) throws(StoreError) -> RefreshToken?
    /// In one transaction: reads the token with `digest`, applies what `decide` says of it (on `.rotate`,
    /// marking it replaced by `next.issuedBy` with `replyKey` and storing `next`), and returns the decision.
    func rotate(digest: String, to next: RefreshToken, replyKey: String,
                deciding decide: (RefreshToken?) -> RotationDecision) throws(StoreError) -> RotationDecision
    /// Revokes every token family of `uid`.
    func revokeAll(uid: String) throws(StoreError)
    /// Deletes up to `limit` families whose every token expired before `cutoff`, with their tokens; returns how many.
    @discardableResult
    func forgetExpiredFamilies(expiredBefore cutoff: Date, limit: Int) throws(StoreError) -> Int
    /// Records a pending sign-in unless one with its request id (or registration id) exists; returns
    /// the one stored under its request id.
    @discardableResult
    func recordPending(_ signIn: PendingSignIn) throws(StoreError) -> PendingSignIn?
    func pending(requestId: String) throws(StoreError) -> PendingSignIn?
    /// The pending sign-in that started the registration `registrationId`.
    func pending(registrationId: String) throws(StoreError) -> PendingSignIn?
}
