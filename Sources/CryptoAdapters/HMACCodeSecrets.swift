import Accounts
import Crypto
import Foundation
import Domain

/// Codes derived from nonces of libsodium's CSPRNG with the server secret, stored as HMAC-SHA256 with it.
public struct HMACCodeSecrets: CodeSecrets {
    private let authenticator: MessageAuthenticator

    /// Uses the secret in the key file at `path` (mode 0600), creating it on first use.
    public init(keyFile path: String) throws {
        self.init(authenticator: try MessageAuthenticator.loadOrCreate(at: path))
    }

    /// Uses `authenticator`'s server secret.
    public init(authenticator: MessageAuthenticator) {
        self.authenticator = authenticator
    }

    /// 16 random bytes, base64url.
    public func newNonce() -> String {
        SecureRandom.token(bytes: 16)
    }

    /// HOTP's truncation of the HMAC of `code|<nonce>`: six digits as unpredictable as the nonce to
    /// anyone without the server secret. (Digest messages start with a purpose, never `code` or `recovery`.)
    public func code(from nonce: String) -> String {
        authenticator.decimalCode(for: Array("code|\(nonce)".utf8), digits: 6)
    }

    /// The first 100 bits of the HMAC of `recovery|<nonce>`, in base32: as unpredictable as the nonce.
    public func recoveryCode(from nonce: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        let bits = authenticator.tag(Array("recovery|\(nonce)".utf8)).flatMap { byte in (0..<8).map { (byte >> (7 - $0)) & 1 } }
        return String((0..<CodeForm.recoveryLength).map { index in
            alphabet[bits[(index * 5)..<(index * 5 + 5)].reduce(0) { Int($0) << 1 | Int($1) }]
        })
    }

    public func digest(of code: String, purpose: CodePurpose, email: String) -> String {
        authenticator.tag(Array("\(purpose.rawValue)|\(email)|\(code)".utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
