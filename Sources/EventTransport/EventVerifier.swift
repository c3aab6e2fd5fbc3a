import Crypto
import Domain
import Kafka

/// The public event keys a worker trusts, by role (during a rotation a role has its old and its new
/// key): checks that a message was signed by one of the roles its route takes.
public struct EventVerifier: Sendable {
    /// The roles with at least one trusted key.
    public let roles: Set<WorkerRole>
    private let keys: @Sendable (WorkerRole) -> [SigningPublicKey]

    /// A verifier trusting `keys`, each role's keys; the roles of a worker's routes' producers.
    public init(trusting keys: [WorkerRole: [SigningPublicKey]]) {
        self.init(roles: Set(keys.filter { !$0.value.isEmpty }.keys)) { keys[$0] ?? [] }
    }

    /// A verifier trusting `roles`, reading a role's keys from `keys` at each message that needs them: key files
    /// re-read when a rotation replaces or retires one.
    public init(roles: Set<WorkerRole>, keys: @escaping @Sendable (WorkerRole) -> [SigningPublicKey]) {
        self.roles = roles
        self.keys = keys
    }

    /// The trusted key with id `keyID` and its role: the producers' keys first, the other roles' only on a miss.
    private func key(_ keyID: String, preferring producers: Set<WorkerRole>) -> (role: WorkerRole, key: SigningPublicKey)? {
        for group in [roles.intersection(producers), roles.subtracting(producers)] {
            for role in group.sorted() {
                if let key = keys(role).first(where: { $0.keyID == keyID }) { return (role, key) }
            }
        }
        return nil
    }

    /// Checks that `message`, carrying an event of `type`, is signed by a trusted key of one of `producers`.
    public func verify(_ message: KafkaMessage, type: String, from producers: Set<WorkerRole>) throws(UnauthenticatedEvent) {
        guard let keyID = Self.single(EventSignature.keyHeader, of: message),
              let encoded = Self.single(EventSignature.signatureHeader, of: message) else {
            throw UnauthenticatedEvent("no single \(EventSignature.keyHeader) and \(EventSignature.signatureHeader) header")
        }
        guard let (role, key) = key(keyID, preferring: producers) else {
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
