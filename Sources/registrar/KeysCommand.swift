import Backends
import Crypto
import Domain
import EventTransport
import Foundation
import Installation
import Support

/// `registrar keys`: creates a full key set once — the account worker's sealing and signing keys, the code
/// secret, the JWKS and each worker role's event signing key — for an operator to distribute; prints the
/// sealing public key, never a secret.
enum KeysCommand {
    /// The options locating the key directory, shared by the `keys` commands.
    static let directoryOptions: [CommandSpec.Option] = [
        ConnectionOptions.specs[1],
        .value("keys-dir", "Directory of the keys (default: <data-dir>/keys)", environment: "REGISTRAR_KEYS_DIR"),
    ]

    static let spec = CommandSpec(name: "registrar keys", summary: "create a key set (sealing, signing, code secret, JWKS, event keys, gateway reply key)",
                                  options: directoryOptions)

    /// The key directory `parsed` names.
    static func directory(_ parsed: ParsedArguments) -> String {
        parsed.value("keys-dir") ?? EmbeddedBackends(parsed.value("data-dir") ?? "data").keysDirectory
    }

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let directory = directory(parsed)
            let events = EventKeyDirectory(directory)
            let secrets = [KeyFileName.sealing, KeyFileName.signing, KeyFileName.codeSecret, KeyFileName.gatewayReply]
                .map { directory + "/" + $0 }
                + WorkerRole.allCases.map(events.secretPath(of:))
            if let existing = secrets.first(where: FileManager.default.fileExists(atPath:)) {
                throw CryptoError.keyFile(path: existing, reason: "exists; keys are never overwritten")
            }
            let sealing = try SealingKeyPair.create(at: secrets[0])
            _ = try KeySet.signing(in: directory).create()
            _ = try MessageAuthenticator.create(at: secrets[2])
            try events.create(WorkerRole.allCases)
            _ = try SealingKeyPair.create(at: secrets[3])
            print(sealing.publicKey.base64)
            return .success
        }
    }
}
