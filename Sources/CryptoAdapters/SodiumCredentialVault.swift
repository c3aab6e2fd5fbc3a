import Accounts
import Crypto
import Foundation

/// The account worker's vault: opens sealed boxes with its key pair, hashes with argon2id, and seals
/// replies to clients' keys.
public struct SodiumCredentialVault: CredentialVault {
    public var keys: SealingKeyPair
    public var hasher: PasswordHasher

    public init(keys: SealingKeyPair, hasher: PasswordHasher = PasswordHasher()) {
        self.keys = keys
        self.hasher = hasher
    }

    public func unseal(_ sealedBase64: String) -> String? {
        guard let sealed = Data(base64Encoded: sealedBase64), let plaintext = try? keys.open(Array(sealed)) else { return nil }
        return String(validating: plaintext, as: UTF8.self)
    }

    public func digest(_ bytes: [UInt8]) -> String {
        sha256Hex(bytes)
    }

    public func hash(_ password: String) throws -> String {
        try hasher.hash(password)
    }

    public func verify(_ password: String, against hash: String) -> Bool {
        hasher.verify(password, against: hash)
    }

    public func needsRehash(_ hash: String) -> Bool {
        hasher.needsRehash(hash)
    }

    public func seal(_ plaintext: String, to publicKey: String) -> String? {
        guard let key = try? SealingPublicKey(base64: publicKey) else { return nil }
        return Data(key.seal(Array(plaintext.utf8))).base64EncodedString()
    }

    public func isPublicKey(_ publicKey: String) -> Bool {
        (try? SealingPublicKey(base64: publicKey)) != nil
    }
}
