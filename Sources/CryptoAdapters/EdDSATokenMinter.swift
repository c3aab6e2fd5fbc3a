import Accounts
import Crypto
import Foundation

/// Access tokens as EdDSA (Ed25519) JWTs naming their key's `kid`, opaque refresh tokens of 32 random bytes,
/// stored as SHA-256.
public struct EdDSATokenMinter: TokenMinter {
    /// The key signing now: read at every token, so a rotated key file takes effect at once.
    public var key: @Sendable () -> SigningKeyPair
    /// The `iss` and `aud` of every access token.
    public var audience: TokenAudience

    public init(key: @escaping @Sendable () -> SigningKeyPair, audience: TokenAudience) {
        self.key = key
        self.audience = audience
    }

    /// A minter signing with `key` only.
    public init(key: SigningKeyPair, audience: TokenAudience) {
        self.init(key: { key }, audience: audience)
    }

    public func accessToken(subject: String, id: String, session: String?, issuedAt: Date, expiresAt: Date) throws -> String {
        // NumericDates in whole seconds, as most verifiers expect; the issue time to the millisecond beside them, for
        // the account's own check against its last credential change.
        let claims = AccessClaims(iss: audience.issuer, aud: audience.audience, sub: subject,
                                  iat: Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down)),
                                  exp: Date(timeIntervalSince1970: expiresAt.timeIntervalSince1970.rounded(.down)), jti: id,
                                  iatMilliseconds: Int64((issuedAt.timeIntervalSince1970 * 1000).rounded()), sid: session)
        let key = key()
        return try JSONWebToken.sign(claims, keyID: key.publicKey.keyID, with: key)
    }

    public func newRefreshToken() -> String {
        SecureRandom.token(bytes: 32)
    }

    public func digest(of refreshToken: String) -> String {
        sha256Hex(Array(refreshToken.utf8))
    }
}

/// The claims of an access token. `iat_ms` is its issue time in Unix milliseconds (`iat` is whole seconds): what the
/// account's sessions rule compares with the account's last credential change (``Account/admitsSession(issuedAt:)``).
/// `sid` names its session, the refresh-token family it was minted with (as OpenID Connect's session id does): a
/// session signed out refuses its access tokens at once, not when they expire.
public struct AccessClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var aud: String
    public var sub: String
    public var iat: Date
    public var exp: Date
    public var jti: String
    public var iatMilliseconds: Int64?
    public var sid: String?

    private enum CodingKeys: String, CodingKey {
        case iss, aud, sub, iat, exp, jti, sid
        case iatMilliseconds = "iat_ms"
    }

    /// The issue time, to the millisecond when the token says it.
    public var issuedAt: Date {
        iatMilliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? iat
    }
}
