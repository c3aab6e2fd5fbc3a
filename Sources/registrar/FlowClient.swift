import Console
import Backends
import Domain
import EventTransport
import Foundation
import RegistrarClient
import SignIn
import Support

/// The command-line side of the code, sign-in and account-change commands: one request made from the command's
/// options, published through a `ClientSupply` that follows a restarted local broker (publishing the request again
/// there), its outcome printed.
struct FlowClient {
    /// The first client: seals the request (every client of the supply derives the same reply keys).
    var client: RegistrarClient
    var supply: ClientSupply
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
            OutcomeKeySource.option,
            localeOption,
        ] + ConnectionOptions.commandSpecs
    }

    /// `--locale`: the language of the mails a request causes (a code mailed for the command included).
    static let localeOption = CommandSpec.Option.value("locale", "Language of the mails the request causes: a BCP 47 tag or a list, "
                                                       + "e.g. zh-CN,en (default: English)", environment: "REGISTRAR_LOCALE")

    /// Runs a command of `spec` with a client made from its options, after reading the secrets `secrets` names.
    static func run(_ arguments: [String], spec: CommandSpec, secrets: (ParsedArguments) throws -> [SecretOption] = { _ in [] },
                    _ body: (ParsedArguments, FlowClient) async throws -> ExitCode) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let values = try SecretInput.standard.read(try secrets(parsed), from: parsed)
            let connection = try ConnectionOptions(parsed, quietUnlessVerbose: true)
            let requestId = parsed.value("request-id") ?? UUID().uuidString.lowercased()
            let timeout = Duration.seconds(try parsed.integer("timeout") ?? 30)
            let publicKey = try PublicKeySource.load(parsed)
            let verifier = try OutcomeKeySource.verifier(parsed, defaultKeysDirectory: EmbeddedBackends(connection.dataDirectory).keysDirectory)
            return try await following(connection, timeout: timeout) { address, secret in
                try RegistrarClient(kafka: connection.kafka(clientID: "registrar-cli", bootstrapServers: address), publicKey: publicKey,
                                    verifier: verifier, replySecret: secret, connectTimeout: connectTimeout(timeout))
            } _: { first, supply in
                try await body(parsed, FlowClient(client: first, supply: supply, requestId: requestId, timeout: timeout, secrets: values,
                                                  json: parsed.flag("json"), locale: parsed.value("locale")))
            }
        }
    }

    /// Runs `body` with the first client of a supply of clients `make` makes for `connection`'s broker (following a
    /// local broker's moves), all deriving reply keys from one `ReplySecret`. When no client could be made within
    /// `timeout`, the last failure is explained in one line (`ConnectionOptions.explainingBrokerTrouble`).
    static func following<T>(_ connection: ConnectionOptions, timeout: Duration, replySecret: ReplySecret = .generate(),
                             make: @escaping @Sendable (String, ReplySecret) throws -> RegistrarClient,
                             _ body: (RegistrarClient, ClientSupply) async throws -> T) async throws -> T {
        var logger = Logger(component: "registrar-cli")
        // A command says in one line why the broker could not be reached; its retries only with --verbose.
        if connection.trouble != nil, !connection.isVerbose { logger.minimumLevel = .error }
        let supply = ClientSupply(logger: logger)
        let stop = ShutdownSignal(signals: [])
        let supplying = Task {
            await supply.supply(from: connection.bootstrapServers, following: connection.bootstrapFile, until: stop) { address in
                try make(address, replySecret)
            }
        }
        do {
            let result = try await connection.explainingBrokerTrouble {
                guard let first = await supply.client(before: .now + timeout) else {
                    // The first attempt may still be under way (a loaded machine): its failure, which comes within the
                    // bound of its metadata query, says best why.
                    let deadline = ContinuousClock.now + max(timeout, connectTimeout(timeout) + .seconds(10))
                    while supply.lastFailure == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
                    throw supply.lastFailure ?? BrokerUnreachable(address: connection.bootstrapServers, timeout: timeout)
                }
                return try await body(first, supply)
            }
            stop.trigger()
            await supplying.value
            return result
        } catch {
            stop.trigger()
            await supplying.value
            throw error
        }
    }

    /// How long one attempt to reach the broker may block: short enough that a local broker's move, or the next
    /// try, comes well within the command's `timeout`.
    static func connectTimeout(_ timeout: Duration) -> Duration { min(timeout, .seconds(5)) }

    /// Publishes `request` (again on a restarted local broker, or after a failed publish) and returns its outcome.
    func send(_ request: Event) async throws -> Event {
        try await attempt(request) { client, left in try await client.send(request, timeout: left) }
    }

    /// Runs `body` through the supply until the timeout; `TimedOut` for `request` when no client took it.
    func attempt<T>(_ request: Event, _ body: (RegistrarClient, Duration) async throws -> T) async throws -> T {
        guard let result = try await supply.attempt(until: .now + timeout, body) else {
            throw RegistrarClient.TimedOut(request: request, timeout: timeout)
        }
        return result
    }

    /// Requests tokens and prints them (to standard output only) or the refusal. A password refused `email_unverified`
    /// is sent again with the code `mailedCode` gives (under a new request id), when given.
    func printTokens(_ grant: GrantType, email: String?, credential: String,
                     mailedCode: (() async throws -> String)? = nil) async throws -> ExitCode {
        var requestId = requestId
        var outcome = try await requestTokens(grant, email: email, credential: credential, requestId: requestId)
        if case (.tokenRefused(let refused), _) = outcome, refused.reason == .emailUnverified, let mailedCode {
            requestId = UUID().uuidString.lowercased()
            outcome = try await requestTokens(grant, email: email, credential: credential, code: try await mailedCode(), requestId: requestId)
        }
        switch outcome {
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

    /// Requests tokens under `requestId` (again on a restarted local broker, or after a failed publish).
    private func requestTokens(_ grant: GrantType, email: String?, credential: String, code: String? = nil,
                               requestId: String) async throws -> (Event, TokenPair?) {
        let request = Event.tokenRequested(TokenRequested(requestId: requestId, grantType: grant, email: email, sealedCredential: "",
                                                          replyKey: client.replyKey(for: requestId)))
        return try await attempt(request) { client, left in
            try await client.requestTokens(grant, email: email, credential: credential, code: code, requestId: requestId, timeout: left)
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

/// No client could reach the broker in time.
struct BrokerUnreachable: Error, CustomStringConvertible {
    var address: String
    var timeout: Duration
    var description: String { "cannot reach the broker at \(address) within \(timeout)" }
}
