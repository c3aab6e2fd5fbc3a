import Crypto
import Domain
import Kafka

/// A worker's event signing key: signs every event the worker publishes as its role.
public struct EventSigner: Sendable {
    public let role: WorkerRole
    private let key: SigningKeyPair

    public init(role: WorkerRole, key: SigningKeyPair) {
        self.role = role
        self.key = key
    }

    /// The key that verifies this signer's events.
    public var publicKey: SigningPublicKey { key.publicKey }

    /// The signature headers (key id and signature) of a message of `type` keyed `key` on `topic` with value `payload`.
    public func headers(topic: String, key messageKey: [UInt8], type: String, payload: [UInt8]) -> [KafkaHeader] {
        let signature = key.sign(EventSignature.signedBytes(topic: topic, key: messageKey, type: type, payload: payload))
        return [KafkaHeader(key: EventSignature.keyHeader, value: Array(key.publicKey.keyID.utf8)),
                KafkaHeader(key: EventSignature.signatureHeader, value: Array(Base64URL.encode(signature).utf8))]
    }
}
