import Crypto
import Foundation
import SignIn

/// Access tokens as EdDSA (Ed25519) JWTs, opaque refresh tokens of 32 random bytes, stored as SHA-256.
public struct EdDSATokenMinter: TokenMinter {
    public var key: SigningKeyPair
    /// The `kid` of the key in the JWKS.
    public var keyID: String

    public init(key: SigningKeyPair) {
        self.key = key
        keyID = key.publicKey.keyID
    }

    /// The JSON Web Key Set that verifies this minter's access tokens.
    public var jwks: String { Crypto.jwks(for: key.publicKey, keyID: keyID) }

    public func accessToken(subject: String, id: String, issuedAt: Date, expiresAt: Date) throws -> String {
        // NumericDates in whole seconds, as most verifiers expect.
        let claims = AccessClaims(sub: subject, iat: Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down)),
                                  exp: Date(timeIntervalSince1970: expiresAt.timeIntervalSince1970.rounded(.down)), jti: id)
        return try JSONWebToken.sign(claims, keyID: keyID, with: key)
    }

    public func newRefreshToken() -> String {
        SecureRandom.token(bytes: 32)
    }

    public func digest(of refreshToken: String) -> String {
        sha256Hex(Array(refreshToken.utf8))
    }
}

/// The claims of an access token.
public struct AccessClaims: Codable, Sendable, Equatable {
    public var sub: String
    public var iat: Date
    public var exp: Date
    public var jti: String
}
