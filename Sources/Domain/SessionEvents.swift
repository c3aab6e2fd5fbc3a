import Foundation

/// Which sessions a ``SignOutRequested`` ends. A session is a refresh-token family: one sign-in and every token
/// rotated from it, with the access tokens minted beside them (their `sid` claim names it).
public enum SignOutScope: String, Codable, Sendable, CaseIterable {
    /// RFC 7009: the session of the sealed token, a refresh token or an access token, whichever it is. Answered
    /// `SignedOut` whether the token was known, valid or neither, so the answer says nothing about it.
    case revocation
    /// The session `sessionId` names, else the Bearer access token's own; only a session of the token's account.
    case session
    /// Every session of the Bearer access token's account: every refresh-token family and every access token,
    /// through the account's sessions cut-off.
    case everywhere

    /// The purpose the request's token is sealed for: one per scope, so that no copy of a request asks for another.
    public var sealPurpose: SealedSecret.Purpose {
        switch self {
        case .revocation: .revocation
        case .session: .signOut
        case .everywhere: .signOutEverywhere
        }
    }
}

/// Published by a client to `auth.requests` to sign out: `sealedToken` is the token sealed to the account worker's
/// public key for the scope's purpose (``SignOutScope/sealPurpose``) with the request's `sessionId`, so that a copy of
/// the request can neither widen nor narrow what it ends; the answer is `SignedOut` or `TokenRefused`.
@PublicInit
public struct SignOutRequested: RequestMessage, Equatable {
    public var requestId: String
    public var scope: SignOutScope
    public var sealedToken: String
    /// The session to end (``SessionView/id``), of scope ``SignOutScope/session`` only; nil: the token's own.
    public var sessionId: String? = nil
    public var replyKey: String
    /// The language of the notice a sign-out everywhere mails (a BCP 47 priority list).
    public var locale: String? = nil
}

/// A request done, with nothing to say but that (``SignedOut``, ``AccountDeleted``).
@PublicInit
public struct RequestDone: RequestMessage, Equatable {
    public var requestId: String
}

/// The sessions a ``SignOutRequested`` names are over (or, for a revocation, whatever the token was, nothing of it
/// counts any more). It carries nothing but the request's id.
public typealias SignedOut = RequestDone

/// The caller's live sessions: `sealedSessions` is a ``SessionList`` (JSON) sealed to the request's `replyKey`.
@PublicInit
public struct SessionsAnswered: RequestMessage, Equatable {
    public var requestId: String
    public var sealedSessions: String
}

/// What `SessionsAnswered.sealedSessions` opens to: the request it answers, the account's live sessions, newest first.
/// No secret.
@PublicInit
public struct SessionList: SealedAnswer, Equatable {
    public static let purpose = AnswerPurpose.sessions
    public var requestId: String
    public var uid: String
    public var sessions: [SessionView]
}

/// A live session (a refresh-token family neither revoked nor expired), as its owner sees it.
@PublicInit
public struct SessionView: Codable, Sendable, Equatable {
    /// What `DELETE /me/sessions/{id}` and ``SignOutRequested/sessionId`` name.
    public var id: String
    /// When it signed in, and when a refresh last used it (Unix seconds).
    public var createdAt: Date
    public var lastUsedAt: Date
    /// The OAuth client the gateway authenticated at its sign-in (as a Kafka client named itself there); nil when none.
    public var clientId: String?
    /// Whether it is the session of the access token that asked.
    public var current: Bool
}
