import Backends
import Crypto
import Foundation
import RegistrarClient
import Support
import WorkerRuntime

/// `registrar seal`: seals a password (read from standard input) for clients that publish
/// `RegistrationRequested` with other tools. Prints the base64 sealed box.
enum SealCommand {
    static let spec = CommandSpec(
        name: "registrar seal", summary: "seal a password read from standard input", usage: "[--public-key BASE64] < password",
        options: [
            .value("public-key", "The account worker's public key (base64); default: from the data directory", environment: "REGISTRAR_PUBLIC_KEY"),
            ConnectionOptions.specs[1],
        ])

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let key = try PublicKeySource.load(parsed)
            var password = FileHandle.standardInput.readDataToEndOfFile()
            if password.last == 0x0A { password.removeLast() }
            print(key.sealedBase64(Array(password)))
            return .success
        }
    }
}

/// Finds the account worker's public key: `--public-key`, `REGISTRAR_PUBLIC_KEY`, or the data directory.
enum PublicKeySource {
    static func load(_ parsed: ParsedArguments) throws -> SealingPublicKey {
        if let base64 = parsed.value("public-key") { return try SealingPublicKey(base64: base64) }
        let path = EmbeddedBackends(parsed.value("data-dir") ?? "data").sealingPublicKey
        guard FileManager.default.fileExists(atPath: path) else {
            throw UsageError.invalid("no public key at \(path): run `registrar keys` or pass --public-key", "")
        }
        return try SealingPublicKey.load(from: path)
    }
}
