import Backends
import EventTransport
import Foundation
import RegistrarClient
import Support

/// Where a client finds the public event keys its outcomes must be signed with (the account and code dispatch
/// workers'): `$REGISTRAR_EVENT_PUBLIC_KEYS` (`role=base64 …`), else the `.pub` files of `--keys-dir`
/// (default `<data-dir>/keys`), re-read when a rotation replaces them.
enum OutcomeKeySource {
    static let option = CommandSpec.Option.value(
        "keys-dir", "Directory of the public event keys outcomes must be signed with (events-account.ed25519.pub, "
            + "events-code-dispatch.ed25519.pub); default: <data-dir>/keys, or $REGISTRAR_EVENT_PUBLIC_KEYS", environment: "REGISTRAR_KEYS_DIR")

    static func verifier(_ parsed: ParsedArguments) throws -> EventVerifier {
        if let text = ProcessInfo.processInfo.environment[EventKeyDirectory.publicKeysVariable], !text.isEmpty {
            return try .outcomes(publicKeys: text)
        }
        return try .outcomes(keysDirectory: parsed.value("keys-dir") ?? EmbeddedBackends(parsed.value("data-dir") ?? "data").keysDirectory)
    }
}
