import SignIn
import Synchronization

/// A `FakeVault` that records every hash a password was verified against, in order.
public final class CountingVault: CredentialVault {
    private let base = FakeVault()
    private let hashes = Mutex<[String]>([])

    public init() {}

    /// The hashes verified against so far.
    public var verified: [String] { hashes.withLock { $0 } }

    public func verify(_ password: String, against hash: String) -> Bool {
        hashes.withLock { $0.append(hash) }
        return base.verify(password, against: hash)
    }

    public func unseal(_ sealedBase64: String) -> String? { base.unseal(sealedBase64) }
    public func hash(_ password: String) throws -> String { try base.hash(password) }
    public func digest(_ bytes: [UInt8]) -> String { base.digest(bytes) }
    public func needsRehash(_ hash: String) -> Bool { base.needsRehash(hash) }
    public func seal(_ plaintext: String, to publicKey: String) -> String? { base.seal(plaintext, to: publicKey) }
    public func isPublicKey(_ publicKey: String) -> Bool { base.isPublicKey(publicKey) }
}
