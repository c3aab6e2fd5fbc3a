import Domain
/// Opens sealed passwords and hashes them; implemented with libsodium outside the domain.
public protocol PasswordVault: Sendable {
    /// The plaintext of a base64 sealed box, or nil when it cannot be opened.
    func unseal(_ sealedBase64: String) -> String?
    /// An encoded password hash (argon2id).
    func hash(_ password: String) throws -> String
    /// The lower-case hex SHA-256 of `bytes` (a reply key's fingerprint, a digest of seals).
    func digest(_ bytes: [UInt8]) -> String
    /// `plaintext` sealed to the X25519 public key `publicKey` (base64), base64; nil when the key is not one.
    func seal(_ plaintext: String, to publicKey: String) -> String?
    /// Whether `publicKey` is an X25519 public key in base64.
    func isPublicKey(_ publicKey: String) -> Bool
}
