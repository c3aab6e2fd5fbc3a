import Backends
import Crypto
import Support
import WorkerRuntime

/// `registrar keys`: creates (or shows) the account worker's sealing key pair.
enum KeysCommand {
    static let spec = CommandSpec(name: "registrar keys", summary: "create the account worker's sealing key pair",
                                  options: [ConnectionOptions.specs[1]])

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let keys = try SealingKeyPair.loadOrCreate(at: EmbeddedBackends(parsed.value("data-dir") ?? "data").sealingKey())
            print(keys.publicKey.base64)
            return .success
        }
    }
}
