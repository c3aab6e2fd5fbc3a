import Crypto
import Domain
import EventTransport
import Kafka

/// Which outcomes a client takes: only those signed by the worker role that produces their type (the account
/// worker, the code dispatch worker), with one of the public event keys it is configured with.
extension EventVerifier {
    /// The roles whose events answer public requests.
    public static var outcomeRoles: Set<WorkerRole> { WorkerRole.outcomeProducers }

    /// Verifies outcomes with the public event keys of the outcome roles in `directory` (`events-<role>.ed25519.pub`,
    /// and a rotated-out `events-<role>.previous.pub`), re-read when a rotation replaces one; throws when one is missing.
    public static func outcomes(keysDirectory directory: String) throws -> EventVerifier {
        let keys = EventKeyDirectory(directory)
        var reading: [WorkerRole: @Sendable () -> [SigningPublicKey]] = [:]
        for role in outcomeRoles { reading[role] = try keys.reloadingPublicKeys(of: role, creatingMissing: false) }
        return EventVerifier(roles: outcomeRoles) { [reading] role in reading[role]?() ?? [] }
    }

    /// Verifies outcomes with the keys of `text`, `role=base64` entries (`$REGISTRAR_EVENT_PUBLIC_KEYS`).
    public static func outcomes(publicKeys text: String) throws -> EventVerifier {
        let keys = try EventKeyDirectory.publicKeys(parsing: text)
        if let missing = outcomeRoles.subtracting(keys.keys).sorted().first { throw MissingOutcomeKey(role: missing) }
        return EventVerifier(trusting: keys.filter { outcomeRoles.contains($0.key) })
    }

    /// Whether `message`, read on an outcome topic, carries an outcome event of its topic and key, validly signed
    /// by the role that produces it.
    public func admitsOutcome(_ message: KafkaMessage) -> Bool {
        guard let event = try? message.event(), event.topic == message.topic, message.key == Array(event.key.utf8),
              !event.kind.producers.isEmpty else { return false }
        return (try? verify(message, type: event.type, from: event.kind.producers)) != nil
    }
}

/// The public event key of an outcome role is missing: from `$REGISTRAR_EVENT_PUBLIC_KEYS`, or at `path`.
public struct MissingOutcomeKey: Error, CustomStringConvertible {
    public var role: WorkerRole
    public var path: String?

    public init(role: WorkerRole, path: String? = nil) {
        self.role = role
        self.path = path
    }

    public var description: String {
        "no public event key of the \(role.rawValue) role\(path.map { " at \($0)" } ?? " in $\(EventKeyDirectory.publicKeysVariable)"): "
            + "outcomes are taken only when that role signed them; give --keys-dir (the key directory `registrar keys` made) "
            + "or $\(EventKeyDirectory.publicKeysVariable) (role=base64 …)"
    }
}
