import Domain
import Foundation
import Accounts

/// Mints the token pair of a sign-in or refresh and seals it to the requester's reply key.
public struct TokenIssuer: Sendable {
    public var tokens: any TokenStore
    public var minter: any TokenMinter
    public var vault: any CredentialVault
    /// The default seconds an access token is valid: 15 minutes.
    public static let defaultAccessLifetime: Double = 900

    /// Seconds an access token is valid.
    public var accessLifetime: Double
    /// Seconds a refresh token is valid.
    public var refreshLifetime: Double

    public init(tokens: any TokenStore, minter: any TokenMinter, vault: any CredentialVault,
                accessLifetime: Double = defaultAccessLifetime, refreshLifetime: Double = 30 * 86400) {
        self.tokens = tokens
        self.minter = minter
        self.vault = vault
        self.accessLifetime = accessLifetime
        self.refreshLifetime = refreshLifetime
    }

    /// A new refresh token of `account` in `family`, issued by `requestId`, with its stored form, stamped after the
    /// account's last credential change (``Account/sessionIssueTime(at:)``).
    public func refreshToken(account: Account, family: String, requestId: String, at now: Date) -> (token: String, record: RefreshToken) {
        let token = minter.newRefreshToken()
        return (token, RefreshToken(digest: minter.digest(of: token), family: family, uid: account.uid, issuedBy: requestId,
                                    issuedAt: account.sessionIssueTime(at: now), expiresAt: now.addingTimeInterval(refreshLifetime)))
    }

    /// Starts a token family, a session, for a sign-in (its id is the request's) by the OAuth client `clientId`, and
    /// answers with the sealed pair.
    public func signIn(account: Account, requestId: String, replyKey: String, clientId: String?, accountCreated: Bool, at now: Date) throws -> Event {
        var refresh = refreshToken(account: account, family: requestId, requestId: requestId, at: now)
        refresh.record.clientId = clientId
        try tokens.store(refresh.record)
        return try answer(account: account, session: requestId, requestId: requestId, replyKey: replyKey, refreshToken: refresh.token,
                          accountCreated: accountCreated, at: now)
    }

    /// `TokenIssued` with a new access token of `account` in `session` and `refreshToken`, sealed to `replyKey`.
    public func answer(account: Account, session: String, requestId: String, replyKey: String, refreshToken: String, accountCreated: Bool,
                       at now: Date) throws -> Event {
        let uid = account.uid
        let access = try minter.accessToken(subject: uid, id: UUID().uuidString.lowercased(), session: session,
                                            issuedAt: account.sessionIssueTime(at: now),
                                            expiresAt: now.addingTimeInterval(accessLifetime))
        let pair = TokenPair(requestId: requestId, uid: uid, accessToken: access, refreshToken: refreshToken).sealedJSON
        guard let sealed = vault.seal(pair, to: replyKey) else {
            return .tokenRefused(RequestRefusal(requestId: requestId, reason: .replyKeyInvalid,
                                              message: "The reply key is not an X25519 public key in base64."))
        }
        return .tokenIssued(TokenIssued(requestId: requestId, sealedTokens: sealed, expiresIn: Int(accessLifetime),
                                        accountCreated: accountCreated))
    }
}
