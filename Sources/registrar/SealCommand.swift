import Backends
import Crypto
import Domain
import EventTransport
import Foundation
import RegistrarClient
import Support

/// `registrar seal`: seals a secret (read from standard input) for clients that publish requests with
/// other tools: a ``SealedSecret`` for one field of one message (purpose, request id, email, reply key),
/// stamped now. Prints the base64 sealed box.
enum SealCommand {
    static let spec = CommandSpec(
        name: "registrar seal", summary: "seal a secret read from standard input for one field of one request",
        usage: "--purpose P --request-id ID [--email E] --reply-key BASE64 [--public-key BASE64] < secret",
        options: [
            .value("purpose", "What the secret is: " + SealedSecret.Purpose.allCases.map(\.rawValue).joined(separator: ", ")),
            .value("request-id", "The request's id (a registration's registrationId)"),
            .value("email", "The request's email (none for a refresh token)"),
            .value("reply-key", "The request's replyKey: the client's X25519 public key (base64)"),
            .value("public-key", "The account worker's public key (base64); default: from the data directory", environment: "REGISTRAR_PUBLIC_KEY"),
            ConnectionOptions.specs[1],
        ])

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let purpose = try parsed.value("purpose", as: "a seal purpose") { SealedSecret.Purpose(rawValue: $0) }
            let context = SealContext(requestId: try parsed.required("request-id"), email: parsed.value("email"),
                                      replyKey: try parsed.required("reply-key"))
            guard let purpose else { throw UsageError.invalid("--purpose is required", spec.helpText) }
            _ = try SealingPublicKey(base64: context.replyKey)
            let key = try PublicKeySource.load(parsed)
            var secret = FileHandle.standardInput.readDataToEndOfFile()
            if secret.last == 0x0A { secret.removeLast() }
            print(key.sealedBase64(String(decoding: secret, as: UTF8.self), for: purpose, in: context))
            return .success
        }
    }
}
