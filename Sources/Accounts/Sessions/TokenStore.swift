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
    /// Whether the family was revoked (reuse detected, password changed, signed out).
    public var familyRevoked: Bool
    /// The OAuth client its family signed in with (``SessionView/clientId``), kept by the family.
    public var clientId: String?

    public init(digest: String, family: String, uid: String, issuedBy: String, issuedAt: Date, expiresAt: Date,
                replacedBy: String? = nil, replacedWith: String? = nil, familyRevoked: Bool = false, clientId: String? = nil) {
        self.digest = digest
        self.family = family
        self.uid = uid
        self.issuedBy = issuedBy
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.replacedBy = replacedBy
        self.replacedWith = replacedWith
        self.familyRevoked = familyRevoked
        self.clientId = clientId
    }
}

/// A session: a refresh-token family, one sign-in and every token rotated from it.
public struct TokenFamily: Sendable, Equatable {
    /// The family's id: the id of the request that signed in.
    public var id: String
    public var uid: String
    public var clientId: String?
    /// When its first token was issued, and its latest.
    public var createdAt: Date
    public var lastUsedAt: Date
    /// When its newest token expires.
    public var expiresAt: Date
    public var revoked: Bool

    public init(id: String, uid: String, clientId: String?, createdAt: Date, lastUsedAt: Date, expiresAt: Date, revoked: Bool) {
        self.id = id
        self.uid = uid
        self.clientId = clientId
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.revoked = revoked
    }

    /// Whether it is a session that still counts at `now`: not revoked, a token not expired.
    public func isLive(at now: Date) -> Bool { !revoked && now < expiresAt }
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
    /// The OAuth client of the token request, which its session keeps.
    public var clientId: String?

    public init(requestId: String, registrationId: String, email: String, replyKey: String, createdAt: Date, clientId: String? = nil) {
        self.requestId = requestId
        self.registrationId = registrationId
        self.email = email
        self.replyKey = replyKey
        self.createdAt = createdAt
        self.clientId = clientId
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
    /// The family `id`, if it is stored.
    func family(_ id: String) throws(StoreError) -> TokenFamily?
    /// The families of `uid` that are live at `now` (``TokenFamily/isLive(at:)``), the latest signed in first.
    func liveFamilies(uid: String, at now: Date) throws(StoreError) -> [TokenFamily]
    /// Revokes the family `id` if it is one of `uid`'s; whether it is one (revoked now or before).
    @discardableResult
    func revoke(family id: String, of uid: String) throws(StoreError) -> Bool
    /// Deletes up to `limit` families whose every token expired before `cutoff`, with their tokens; returns how many.
    @discardableResult
    func forgetExpiredFamilies(expiredBefore cutoff: Date, limit: Int) throws(StoreError) -> Int
    /// Deletes every family of `uid` with its tokens (a deleted account's; deleting none succeeds).
    func forget(uid: String) throws(StoreError)
    /// Records a pending sign-in unless one with its request id (or registration id) exists; returns
    /// the one stored under its request id.
    @discardableResult
    func recordPending(_ signIn: PendingSignIn) throws(StoreError) -> PendingSignIn?
    func pending(requestId: String) throws(StoreError) -> PendingSignIn?
    /// The pending sign-in that started the registration `registrationId`.
    func pending(registrationId: String) throws(StoreError) -> PendingSignIn?
    /// Deletes the pending sign-ins naming `email` (a deleted account's address).
    func forgetPending(email: String) throws(StoreError)
    /// Deletes the pending sign-ins recorded before `date` (the sweep: their requests are answered, and kept answers
    /// forgotten, by then); returns how many.
    @discardableResult
    func forgetPending(recordedBefore date: Date) throws(StoreError) -> Int
}
