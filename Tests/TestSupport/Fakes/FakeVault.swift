import Domain
import Foundation
import Registration
import SignIn

/// Sealing and hashing without cryptography: a seal is `sealed:` and its plaintext, the hash of `p` is `hash:p`,
/// the digest of some bytes is `digest:` and their text, and a public key is any string starting with `key:`.
public struct FakeVault: CredentialVault {
    public init() {}

    /// `secret` as a client seals it for this vault: for `purpose` in the message `context`, stamped `date`.
    public static func sealed(_ secret: String, _ purpose: SealedSecret.Purpose, _ context: SealContext, at date: Date) -> String {
        let sealed = SealedSecret(purpose: purpose, requestId: context.requestId, email: context.email,
                                  replyKeyFingerprint: FakeVault().digest(Array(context.replyKey.utf8)),
                                  sealedAt: Int(date.timeIntervalSince1970), secret: secret)
        return "sealed:" + String(decoding: sealed.encoded, as: UTF8.self)
    }

    public func unseal(_ sealedBase64: String) -> String? {
        sealedBase64.hasPrefix("sealed:") ? String(sealedBase64.dropFirst(7)) : nil
    }

    public func hash(_ password: String) throws -> String { "hash:" + password }

    public func digest(_ bytes: [UInt8]) -> String { "digest:" + String(decoding: bytes, as: UTF8.self) }

    public func verify(_ password: String, against hash: String) -> Bool { !hash.isEmpty && hash == "hash:" + password }

    public func needsRehash(_ hash: String) -> Bool { false }

    public func seal(_ plaintext: String, to publicKey: String) -> String? {
        isPublicKey(publicKey) ? "sealed-to:\(publicKey):\(plaintext)" : nil
    }

    public func isPublicKey(_ publicKey: String) -> Bool { publicKey.hasPrefix("key:") }
}
