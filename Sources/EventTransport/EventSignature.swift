/// What a worker's event signature covers, and the headers that carry it (part of the contract,
/// `contract/asyncapi.yaml`): an Ed25519 signature over the label, a version, then the topic, the
/// message key, the event type and the message value, each length-prefixed, so that no two
/// different messages (or a message moved to another topic or key) share the signed bytes.
public enum EventSignature {
    /// The header naming the signing key: its key id (`SigningPublicKey.keyID`).
    public static let keyHeader = "signature-key"
    /// The header carrying the signature, in unpadded base64url.
    public static let signatureHeader = "signature"
    /// Separates these signatures from every other use of an Ed25519 key.
    static let label = Array("registrar-event-signature".utf8)
    static let version: UInt8 = 1

    /// The bytes signed for a message of `type` keyed `key` on `topic` whose value is `payload`.
    static func signedBytes(topic: String, key: [UInt8], type: String, payload: [UInt8]) -> [UInt8] {
        var bytes = label + [version]
        for field in [Array(topic.utf8), key, Array(type.utf8), payload] {
            let length = UInt32(field.count)
            bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) }
            bytes += field
        }
        return bytes
    }
}
