import Crypto
import Foundation
import Support

/// Finds the account worker's public key: `--public-key`, `REGISTRAR_PUBLIC_KEY`, or the data directory.
public enum PublicKeySource {
    public static func load(_ parsed: ParsedArguments) throws -> SealingPublicKey {
        if let base64 = parsed.value("public-key") { return try SealingPublicKey(base64: base64) }
        let path = EmbeddedBackends(parsed.value("data-dir") ?? "data").sealingPublicKey
        guard FileManager.default.fileExists(atPath: path) else {
            throw UsageError.invalid("no public key at \(path): run `registrar keys` or pass --public-key", "")
        }
        return try SealingPublicKey.load(from: path)
    }
}
