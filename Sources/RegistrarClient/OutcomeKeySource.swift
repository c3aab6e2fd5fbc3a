import EventTransport
import Foundation
import Support

/// Where a client finds the public event keys its outcomes must be signed with (the account and code dispatch
/// workers'): `$REGISTRAR_EVENT_PUBLIC_KEYS` (`role=base64 …`), else the `.pub` files of `--keys-dir` (by default the
/// installation's key directory, `<data-dir>/keys`), re-read when a rotation replaces them.
public enum OutcomeKeySource {
    public static let option = CommandSpec.Option.value(
        "keys-dir", "Directory of the public event keys outcomes must be signed with (events-account.ed25519.pub, "
            + "events-code-dispatch.ed25519.pub); default: <data-dir>/keys, or $REGISTRAR_EVENT_PUBLIC_KEYS", environment: "REGISTRAR_KEYS_DIR")

    public static func verifier(_ parsed: ParsedArguments, defaultKeysDirectory: String) throws -> EventVerifier {
        if let text = ProcessInfo.processInfo.environment[EventKeyDirectory.publicKeysVariable], !text.isEmpty {
            return try .outcomes(publicKeys: text)
        }
        let directory = parsed.value("keys-dir") ?? defaultKeysDirectory
        let keys = EventKeyDirectory(directory)
        if let missing = EventVerifier.outcomeRoles.sorted().first(where: { !FileManager.default.fileExists(atPath: keys.publicPath(of: $0)) }) {
            throw MissingOutcomeKey(role: missing, path: keys.publicPath(of: missing))
        }
        return try .outcomes(keysDirectory: directory)
    }
}
