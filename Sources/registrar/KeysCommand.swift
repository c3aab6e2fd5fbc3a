import Backends
import Crypto
import Foundation
import Installation
import Support
import WorkerRuntime

/// `registrar keys`: creates a full key set once — the account worker's sealing and signing keys, the code
/// secret, and the JWKS — for an operator to distribute; prints the sealing public key, never a secret.
enum KeysCommand {
    static let spec = CommandSpec(name: "registrar keys", summary: "create a key set (sealing, signing, code secret, JWKS)",
                                  options: [ConnectionOptions.specs[1],
                                            .value("keys-dir", "Directory to create the keys in (default: <data-dir>/keys)",
                                                   environment: "REGISTRAR_KEYS_DIR")])

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let directory = parsed.value("keys-dir") ?? EmbeddedBackends(parsed.value("data-dir") ?? "data").keysDirectory
            let secrets = [KeyFileName.sealing, KeyFileName.signing, KeyFileName.codeSecret].map { directory + "/" + $0 }
            if let existing = secrets.first(where: FileManager.default.fileExists(atPath:)) {
                throw CryptoError.keyFile(path: existing, reason: "exists; keys are never overwritten")
            }
            let sealing = try SealingKeyPair.create(at: secrets[0])
            _ = try KeySet.signing(in: directory).create()
            _ = try MessageAuthenticator.create(at: secrets[2])
            print(sealing.publicKey.base64)
            return .success
        }
    }
}
