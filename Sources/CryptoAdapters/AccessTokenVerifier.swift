import Accounts
import Crypto
import Foundation

/// Checks access tokens as a resource server must: EdDSA by a key of the JWKS under the header's `kid`,
/// not expired, issued by `audience.issuer` for `audience.audience`.
public struct AccessTokenVerifier: Sendable {
    /// The verification keys now.
    public var keys: @Sendable () -> JSONWebKeySet
    public var audience: TokenAudience

    public init(keys: JSONWebKeySet, audience: TokenAudience) {
        self.keys = { keys }
        self.audience = audience
    }

    /// A verifier of the JWKS document at `path` (e.g. `<keys>/jwks.json`), re-read whenever it is rewritten,
    /// so tokens of a newly rotated key verify at once.
    public init(jwksAt path: String, audience: TokenAudience) throws {
        let file = try JSONWebKeySetFile(path: path)
        keys = { file.current }
        self.audience = audience
    }

    /// The token's claims, or why it is refused.
    public func verify(_ token: String, now: Date = Date()) throws(JSONWebTokenError) -> AccessClaims {
        try JSONWebToken.verify(token, as: AccessClaims.self, using: keys(), issuer: audience.issuer,
                                audience: audience.audience, now: now)
    }
}

extension AccessTokenVerifier: AccessTokenCheck {
    public func subject(of token: String, at now: Date) -> AccessTokenSubject? {
        (try? verify(token, now: now)).map { AccessTokenSubject(uid: $0.sub, issuedAt: $0.issuedAt, session: $0.sid) }
    }
}
