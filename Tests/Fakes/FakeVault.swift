import Domain
import SignIn

/// Sealing and hashing without cryptography: `sealed(x)` is `sealed:x`, the hash of `p` is `hash:p`,
/// and a public key is any string starting with `key:`.
public struct FakeVault: CredentialVault {
    public init() {}

    /// `secret` as a client seals it for this vault.
    public static func sealed(_ secret: String) -> String { "sealed:" + secret }

    public func unseal(_ sealedBase64: String) -> String? {
        sealedBase64.hasPrefix("sealed:") ? String(sealedBase64.dropFirst(7)) : nil
    }

    public func hash(_ password: String) throws -> String { "hash:" + password }

    public func verify(_ password: String, against hash: String) -> Bool { !hash.isEmpty && hash == "hash:" + password }

    public func needsRehash(_ hash: String) -> Bool { false }

    public func seal(_ plaintext: String, to publicKey: String) -> String? {
        isPublicKey(publicKey) ? "sealed-to:\(publicKey):\(plaintext)" : nil
    }

    public func isPublicKey(_ publicKey: String) -> Bool { publicKey.hasPrefix("key:") }
}
