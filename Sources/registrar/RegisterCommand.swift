import Backends
import Crypto
import Domain
import EventTransport
import Foundation
import RegistrarClient
import S3Store
import Support

/// `registrar register`: requests the register code that proves the mailbox, publishes a registration request with it
/// and waits for its outcome.
enum RegisterCommand {
    static let spec = CommandSpec(
        name: "registrar register", summary: "publish a registration and wait for its outcome",
        usage: "--email E --name N [--password-file F] [--code-file F] [--avatar FILE] [--map-location on|off]   "
            + "(else the password, then the register code mailed to E, on standard input or prompted)",
        options: [
            .value("email", "Email address"),
            .value("name", "Display name, 1–30 characters"),
            .value("avatar", "Image file for the avatar; the default image when absent"),
            .value("map-location", "on or off", default: "off"),
            .value("registration-id", "Idempotency key, unguessable (a refusal answers it for 7 days); default: a new UUID"),
            .value("timeout", "Seconds to wait for the outcome", default: "30"),
            .value("public-key", "The account worker's public key (base64)", environment: "REGISTRAR_PUBLIC_KEY"),
            .value("reply-key-file", "Keep the secret the request's reply key pair is derived from in this file (0600, in any directory), "
                   + "for `registrar status`; default: in memory only"),
            OutcomeKeySource.option,
            FlowClient.localeOption,
        ] + Secret.password.options + Secret.code.options + ConnectionOptions.commandSpecs + BackendOptions.specs)

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let connection = try ConnectionOptions(parsed, quietUnlessVerbose: true)
            let mapLocation = try parsed.value("map-location", as: "on or off") { ["on": true, "off": false][$0] } ?? false
            let timeout = try parsed.integer("timeout") ?? 30
            let avatar = try parsed.value("avatar").map { path in
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw UsageError.invalid("cannot read avatar file \(path)", "")
                }
                return Array(data)
            }
            let registrationId = parsed.value("registration-id") ?? UUID().uuidString.lowercased()
            let (email, name) = (try parsed.required("email"), try parsed.required("name"))
            let password = try Secret.read(Secret.password, from: parsed)[0]
            let objects = try BackendOptions(parsed, dataDirectory: connection.dataDirectory).objectStore()
            let replySecret = try parsed.value("reply-key-file").map { ReplySecret(try SealingKeyPair.loadOrCreateReplyKeys(at: $0)) } ?? .generate()
            let publicKey = try PublicKeySource.load(parsed)
            let verifier = try OutcomeKeySource.verifier(parsed, defaultKeysDirectory: EmbeddedBackends(connection.dataDirectory).keysDirectory)
            let outcome = try await FlowClient.following(connection, timeout: .seconds(timeout), replySecret: replySecret) { address, secret in
                try RegistrarClient(kafka: connection.kafka(clientID: "registrar-cli", bootstrapServers: address), publicKey: publicKey,
                                    verifier: verifier, replySecret: secret,
                                    connectTimeout: FlowClient.connectTimeout(.seconds(timeout)))
            } _: { first, supply in
                // The register code proves the mailbox: asked for now (unless given in a file), then read like the password.
                let code = try await first.mailedCode(.register, email: email, parsed: parsed, timeout: .seconds(timeout))
                let request = try first.registration(id: registrationId, email: email, password: password, code: code, name: name,
                                                     avatar: avatar, isMapLocationEnabled: mapLocation, staging: objects)
                // Published again on a restarted local broker (the staged avatar stays where it is).
                guard let outcome = try await supply.attempt(until: .now + .seconds(timeout), { client, left in
                    try await client.register(request, timeout: left, staging: objects)
                }) else { throw RegistrarClient.TimedOut(request: .registrationRequested(request), timeout: .seconds(timeout)) }
                return outcome
            }
            switch outcome {
            case .completed(let completed):
                print("completed \(registrationId): uid \(completed.uid), profile image \(completed.profile.profileImage)")
                return .success
            case .failed(let failed):
                print("failed \(registrationId): \(failed.reason.rawValue) — \(failed.message)")
                return .failure
            }
        }
    }
}
