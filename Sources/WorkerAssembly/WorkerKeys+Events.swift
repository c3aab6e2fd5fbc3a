import Crypto
import Foundation
import Domain
import EventTransport
import Support

/// Every worker's event keys: its own role's signing key (from `$REGISTRAR_EVENT_KEY` as base64, else
/// `--event-key-file`, else `--keys-dir`, like the other keys) and the public keys of the roles whose
/// events it takes (from `$REGISTRAR_EVENT_PUBLIC_KEYS`, else the `.pub` files of `--keys-dir`,
/// including a rotated-out key still in its overlap). Key files are re-read when a rotation replaces or retires
/// them, so running workers follow a rotation. In embedded mode missing ones are created in `<data>/keys`.
extension WorkerKeys {
    static let publicEventKeysVariable = EventKeyDirectory.publicKeysVariable

    /// The key options every worker has.
    static let eventSpecs: [CommandSpec.Option] = [
        .value("keys-dir", "Directory of the key files `registrar keys` creates (default: <data-dir>/keys; with embedded stores "
               + "missing keys are created there on first start, with production stores they must be there)",
               environment: "REGISTRAR_KEYS_DIR"),
        .value("event-key-file", "File holding this worker's event signing key (or $REGISTRAR_EVENT_KEY as base64)",
               environment: "REGISTRAR_EVENT_KEY_FILE"),
    ]

    static func eventKey(_ role: WorkerRole) -> Key {
        Key(what: "event signing key of the \(role.rawValue) role", file: EventKeyDirectory.secretFile(of: role),
            option: "event-key-file", variable: "REGISTRAR_EVENT_KEY")
    }

    /// The signer of `role`'s events: this worker's own event key, its file re-read when a rotation replaces it.
    func eventSigner(_ role: WorkerRole) throws -> EventSigner {
        EventSigner(role: role, key: try reloadingSigningKey(Self.eventKey(role)))
    }

    /// The verifier of the events of `roles`: their public keys only.
    func eventVerifier(trusting roles: Set<WorkerRole>) throws -> EventVerifier {
        if let text = environment[Self.publicEventKeysVariable], !text.isEmpty {
            let keys = try EventKeyDirectory.publicKeys(parsing: text)
            if let missing = roles.subtracting(keys.keys).sorted().first { throw MissingPublicEventKey(role: missing) }
            return EventVerifier(trusting: keys.filter { roles.contains($0.key) })
        }
        let directory = EventKeyDirectory(directory)
        if stores.isProduction, parsed.value("keys-dir") == nil,
           let missing = roles.sorted().first(where: { !FileManager.default.fileExists(atPath: directory.publicPath(of: $0)) }) {
            throw MissingPublicEventKey(role: missing)
        }
        var keys: [WorkerRole: @Sendable () -> [SigningPublicKey]] = [:]
        for role in roles { keys[role] = try directory.reloadingPublicKeys(of: role, creatingMissing: !stores.isProduction) }
        return EventVerifier(roles: roles) { [keys] role in keys[role]?() ?? [] }
    }
}

/// A public event key a worker in production mode was not given.
struct MissingPublicEventKey: Error, CustomStringConvertible {
    var role: WorkerRole

    var description: String {
        "no public event key of the \(role.rawValue) role: in production mode give --keys-dir (with "
            + "\(EventKeyDirectory.secretFile(of: role)).pub; default <data-dir>/keys) or $\(WorkerKeys.publicEventKeysVariable) (role=base64 …)"
    }
}
