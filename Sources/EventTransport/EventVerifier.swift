import Crypto
import Domain
import Kafka

/// The public event keys a worker trusts, by role (during a rotation a role has its old and its new
/// key): checks that a message was signed by one of the roles its route takes.
public struct EventVerifier: Sendable {
    private let keys: [String: (role: WorkerRole, key: SigningPublicKey)]

    /// A verifier trusting `keys`, each role's keys; the roles of a worker's routes' producers.
    public init(trusting keys: [WorkerRole: [SigningPublicKey]]) {
        self.keys = Dictionary(keys.flatMap { role, keys in keys.map { ($0.keyID, (role, $0)) } }) { first, _ in first }
    }

    /// The roles with at least one trusted key.
    public var roles: Set<WorkerRole> { Set(keys.values.map(\.role)) }

    /// Checks that `message`, carrying an event of `type`, is signed by a trusted key of one of `producers`.
    public func verify(_ message: KafkaMessage, type: String, from producers: Set<WorkerRole>) throws(UnauthenticatedEvent) {
        guard let keyID = Self.single(EventSignature.keyHeader, of: message),
              let encoded = Self.single(EventSignature.signatureHeader, of: message) else {
            throw UnauthenticatedEvent("no single \(EventSignature.keyHeader) and \(EventSignature.signatureHeader) header")
        }
        guard let (role, key) = keys[keyID] else {
            throw UnauthenticatedEvent("signed with an unknown key (\(keyID.prefix(16)))")
        }
        guard producers.contains(role) else {
            throw UnauthenticatedEvent("signed by the \(role.rawValue) role; \(type) is taken from \(producers.sorted().map(\.rawValue).joined(separator: ", ")) only")
        }
        let signed = EventSignature.signedBytes(topic: message.topic, key: message.key ?? [], type: type, payload: message.value)
        guard let signature = Base64URL.decode(encoded), key.verify(signature: signature, message: signed) else {
            throw UnauthenticatedEvent("the signature of key \(keyID) does not match the message")
        }
    }

    /// The value of header `name` as text, when the message has exactly one.
    private static func single(_ name: String, of message: KafkaMessage) -> String? {
        let values = message.headers.filter { $0.key == name }.compactMap(\.value)
        return values.count == 1 ? String(decoding: values[0], as: UTF8.self) : nil
    }
}

/// Why a message was refused as not signed by a role its route takes.
public struct UnauthenticatedEvent: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
