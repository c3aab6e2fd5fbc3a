import Crypto
import Foundation
import Domain
import Verification

/// Codes from libsodium's CSPRNG, stored as HMAC-SHA256 with the server secret.
public struct HMACCodeSecrets: CodeSecrets {
    private let authenticator: MessageAuthenticator

    /// Uses the secret in the key file at `path` (mode 0600), creating it on first use.
    public init(keyFile path: String) throws {
        authenticator = try MessageAuthenticator.loadOrCreate(at: path)
    }

    public func newCode() -> String {
        SecureRandom.digits(6)
    }

    public func digest(of code: String, purpose: CodePurpose, email: String) -> String {
        authenticator.tag(Array("\(purpose.rawValue)|\(email)|\(code)".utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
