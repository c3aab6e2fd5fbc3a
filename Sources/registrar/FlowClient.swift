import Crypto
import Foundation
import Kafka
import Domain
import EventTransport
import SignIn
import Support
import WorkerRuntime

/// The client side of the code, sign-in and account-change commands: seal secrets to the account
/// worker, publish one request, wait for its outcome.
struct FlowClient {
    var kafka: KafkaConfiguration
    var publicKey: SealingPublicKey
    var requestId: String
    var timeout: Duration

    /// The options every such command takes besides its own.
    static func options(_ own: [CommandSpec.Option]) -> [CommandSpec.Option] {
        own + [
            .value("request-id", "Idempotency key; default: a new UUID"),
            .value("timeout", "Seconds to wait for the outcome", default: "30"),
            .value("public-key", "The account worker's public key (base64)", environment: "REGISTRAR_PUBLIC_KEY"),
        ] + ConnectionOptions.specs
    }

    /// Runs a command of `spec` with a client made from its options.
    static func run(_ arguments: [String], spec: CommandSpec,
                    _ body: (ParsedArguments, FlowClient) async throws -> ExitCode) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let connection = try ConnectionOptions(parsed)
            let client = FlowClient(kafka: connection.kafka(clientID: "registrar-cli"), publicKey: try PublicKeySource.load(parsed),
                                    requestId: parsed.value("request-id") ?? UUID().uuidString.lowercased(),
                                    timeout: .seconds(try parsed.integer("timeout") ?? 30))
            return try await body(parsed, client)
        }
    }

    /// `secret` sealed to the account worker's public key, base64.
    func seal(_ secret: String) -> String {
        Data(publicKey.seal(Array(secret.utf8))).base64EncodedString()
    }

    /// Publishes `request` and returns the first event keyed by its id on `outcomes`.
    func send(_ request: Event, awaiting outcomes: String) async throws -> Event {
        let waiter = try OutcomeWaiter(topic: outcomes, configuration: kafka)
        let producer = try KafkaProducer(configuration: kafka)
        _ = try await producer.send(OutgoingMessage(request, producer: "registrar-cli"))
        await producer.close()
        guard let message = try await waiter.wait(forKey: request.key, timeout: timeout) else {
            throw TimedOut(requestId: request.key, timeout: timeout)
        }
        return try EventCodec.decode(message.value)
    }

    /// Requests tokens with a fresh reply key; returns the outcome and, when issued, the opened tokens.
    func requestTokens(_ grant: GrantType, email: String?, credential: String) async throws -> (Event, TokenPair?) {
        let replyKeys = SealingKeyPair.generate()
        let request = TokenRequested(requestId: requestId, grantType: grant, email: email,
                                     sealedCredential: seal(credential), replyKey: replyKeys.publicKey.base64)
        let outcome = try await send(.tokenRequested(request), awaiting: Topic.authOutcomes)
        guard case .tokenIssued(let issued) = outcome else { return (outcome, nil) }
        guard let sealed = Data(base64Encoded: issued.sealedTokens),
              let pair = try? JSONDecoder().decode(TokenPair.self, from: Data(try replyKeys.open(Array(sealed)))) else {
            throw UnexpectedEvent(type: "TokenIssued with unreadable tokens", worker: "registrar")
        }
        return (outcome, pair)
    }

    /// Requests tokens and prints them (to standard output only) or the refusal.
    func printTokens(_ grant: GrantType, email: String?, credential: String) async throws -> ExitCode {
        switch try await requestTokens(grant, email: email, credential: credential) {
        case (.tokenIssued(let issued), let pair?):
            print("signed in \(requestId): uid \(issued.uid)\(issued.accountCreated ? " (account created)" : "")")
            print("access_token: \(pair.accessToken)")
            print("refresh_token: \(pair.refreshToken)")
            print("expires_in: \(issued.expiresIn)")
            return .success
        case (.tokenRefused(let refused), _):
            return self.refused(refused.reason, refused.message)
        case (let other, _):
            throw UnexpectedEvent(type: other.type, worker: "registrar")
        }
    }

    /// Publishes an account change and prints its outcome.
    func changeAccount(_ request: Event) async throws -> ExitCode {
        switch try await send(request, awaiting: Topic.accountOutcomes) {
        case .accountChangeCompleted(let completed):
            print("completed \(requestId): \(completed.change.rawValue) for uid \(completed.uid)")
            return .success
        case .accountChangeFailed(let failed):
            return refused(failed.reason, failed.message)
        case let other:
            throw UnexpectedEvent(type: other.type, worker: "registrar")
        }
    }

    /// Prints a failed outcome and returns the failure exit code.
    func refused(_ reason: ReasonCode, _ message: String) -> ExitCode {
        print("failed \(requestId): \(reason.rawValue) — \(message)")
        return .failure
    }

    struct TimedOut: Error, CustomStringConvertible {
        var requestId: String
        var timeout: Duration
        var description: String { "no outcome for request \(requestId) within \(timeout); is the worker running?" }
    }
}
