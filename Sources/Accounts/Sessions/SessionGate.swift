import Domain
import Foundation

/// Whether a Bearer access token still counts, and for whom: it verifies (``AccessTokenCheck``), its account admits a
/// session issued when it was (``Account/admitsSession(issuedAt:)``: no credential change or sign-out everywhere since),
/// and its session — the refresh-token family its `sid` names — was not signed out or revoked. Every step that acts on
/// an access token asks here, so a session ended anywhere is ended everywhere at once, not when its token expires.
public struct SessionGate: Sendable {
    public var accessTokens: any AccessTokenCheck
    public var accounts: any AccountStore
    public var tokens: any TokenStore

    public init(accessTokens: any AccessTokenCheck, accounts: any AccountStore, tokens: any TokenStore) {
        self.accessTokens = accessTokens
        self.accounts = accounts
        self.tokens = tokens
    }

    /// Who a token that still counts speaks for.
    public struct Caller: Sendable, Equatable {
        public var account: Account
        /// The token's session (``SessionView/id``); nil for a token minted before access tokens named theirs.
        public var session: String?
    }

    /// The caller of `token` at `now`, or nil when the token does not count (for whatever reason), among them an account
    /// that is not active (disabled, being deleted) whatever its sessions.
    public func caller(of token: String, at now: Date) throws -> Caller? {
        guard let subject = accessTokens.subject(of: token, at: now), let account = try accounts.account(uid: subject.uid),
              account.status == .active, account.admitsSession(issuedAt: subject.issuedAt) else { return nil }
        if let session = subject.session {
            // A family is stored before its first access token is minted: one not found was forgotten, so is over.
            guard let family = try tokens.family(session), family.uid == account.uid, !family.revoked else { return nil }
        }
        return Caller(account: account, session: subject.session)
    }

    /// Whether the caller's session signed in (by password or emailed code) within `window` seconds before `now`: the
    /// re-authentication an export or a deletion needs, so that whoever holds an older session's token cannot.
    public func signedInRecently(_ caller: Caller, within window: Double, at now: Date) throws -> Bool {
        guard let session = caller.session, let family = try tokens.family(session) else { return false }
        return now.timeIntervalSince(family.createdAt) <= window
    }
}
