import Console
import Backends
import Domain
import EventTransport
import Foundation
import RegistrarClient
import SignIn
import Support

/// The command-line side of the code, sign-in and account-change commands: one request of a
/// `RegistrarClient` made from the command's options, its outcome printed.
struct FlowClient {
    var client: RegistrarClient
    var requestId: String
    var timeout: Duration
    /// The command's secrets, read before connecting (so a prompt comes at once), in the order asked for.
    var secrets: [String]
    /// `--json`: the outcome as one JSON object.
    var json = false
    /// `--locale`: the language of the mails the request causes.
    var locale: String?

    /// The options every such command takes besides its own.
    static func options(_ own: [CommandSpec.Option]) -> [CommandSpec.Option] {
        own + [
            .value("request-id", "Idempotency key; default: a new UUID"),
            .value("timeout", "Seconds to wait for the outcome", default: "30"),
            .value("public-key", "The account worker's public key (base64)", environment: "REGISTRAR_PUBLIC_KEY"),
            .value("locale", "Language of the mails the request causes: a BCP 47 tag or a list, e.g. zh-CN,en (default: English)",
                   environment: "REGISTRAR_LOCALE"),
        ] + ConnectionOptions.commandSpecs
    }

    /// Runs a command of `spec` with a client made from its options, after reading the secrets `secrets` names.
    static func run(_ arguments: [String], spec: CommandSpec, secrets: (ParsedArguments) throws -> [SecretOption] = { _ in [] },
                    _ body: (ParsedArguments, FlowClient) async throws -> ExitCode) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let values = try SecretInput.standard.read(try secrets(parsed), from: parsed)
            let connection = try ConnectionOptions(parsed, quietUnlessVerbose: true)
            let requestId = parsed.value("request-id") ?? UUID().uuidString.lowercased()
            let timeout = Duration.seconds(try parsed.integer("timeout") ?? 30)
            let publicKey = try PublicKeySource.load(parsed)
            return try await connection.explainingBrokerTrouble {
                try await RegistrarClient.with(kafka: connection.kafka(clientID: "registrar-cli"), publicKey: publicKey,
                                               connectTimeout: timeout) { client in
                    try await body(parsed, FlowClient(client: client, requestId: requestId, timeout: timeout, secrets: values,
                                                      json: parsed.flag("json"), locale: parsed.value("locale")))
                }
            }
        }
    }

    /// Publishes `request` and returns its outcome.
    func send(_ request: Event) async throws -> Event {
        try await client.send(request, timeout: timeout)
    }

    /// Requests tokens and prints them (to standard output only) or the refusal.
    func printTokens(_ grant: GrantType, email: String?, credential: String) async throws -> ExitCode {
        switch try await client.requestTokens(grant, email: email, credential: credential, requestId: requestId, timeout: timeout) {
        case (.tokenIssued(let issued), let pair?):
            if json {
                JSONOutput.print(["requestId": requestId, "outcome": "signed_in", "uid": pair.uid, "accountCreated": issued.accountCreated,
                                  "accessToken": pair.accessToken, "refreshToken": pair.refreshToken, "expiresIn": issued.expiresIn])
                return .success
            }
            print("signed in \(requestId): uid \(pair.uid)\(issued.accountCreated ? " (account created)" : "")")
            print("access_token: \(pair.accessToken)")
            print("refresh_token: \(pair.refreshToken)")
            print("expires_in: \(issued.expiresIn)")
            return .success
        case (.tokenRefused(let refused), _):
            return self.refused(refused.reason, refused.message)
        case (let other, _):
            throw RegistrarClient.UnexpectedOutcome(type: other.type)
        }
    }

    /// Publishes an account change and prints its outcome.
    func changeAccount(_ request: Event) async throws -> ExitCode {
        switch try await send(request) {
        case .accountChangeCompleted(let completed):
            print("completed \(requestId): \(completed.change.rawValue)")
            return .success
        case .accountChangeFailed(let failed):
            return refused(failed.reason, failed.message)
        case let other:
            throw RegistrarClient.UnexpectedOutcome(type: other.type)
        }
    }

    /// Prints a failed outcome and returns the failure exit code.
    func refused(_ reason: ReasonCode, _ message: String) -> ExitCode {
        if json {
            JSONOutput.print(["requestId": requestId, "outcome": "refused", "reason": reason.rawValue, "message": message])
        } else {
            print("failed \(requestId): \(reason.rawValue) — \(message)")
        }
        return .failure
    }
}
