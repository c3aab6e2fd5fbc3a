import Crypto
import Domain
import Kafka

/// A worker's event signing key: signs every event the worker publishes as its role.
public struct EventSigner: Sendable {
    public let role: WorkerRole
    private let key: @Sendable () -> SigningKeyPair

    public init(role: WorkerRole, key: SigningKeyPair) {
        self.init(role: role) { key }
    }

    /// A signer taking its key from `key` at each message: a key file re-read when a rotation replaces it.
    public init(role: WorkerRole, key: @escaping @Sendable () -> SigningKeyPair) {
        self.role = role
        self.key = key
    }

    /// The key that verifies this signer's events now.
    public var publicKey: SigningPublicKey { key().publicKey }

    /// The signature headers (key id and signature) of a message of `type` keyed `key` on `topic` with value `payload`.
    public func headers(topic: String, key messageKey: [UInt8], type: String, payload: [UInt8]) -> [KafkaHeader] {
        let key = key()
        let signature = key.sign(EventSignature.signedBytes(topic: topic, key: messageKey, type: type, payload: payload))
        return [KafkaHeader(key: EventSignature.keyHeader, value: Array(key.publicKey.keyID.utf8)),
                KafkaHeader(key: EventSignature.signatureHeader, value: Array(Base64URL.encode(signature).utf8))]
    }
}
