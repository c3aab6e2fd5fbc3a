import Backends
import Crypto
import EventTransport
import Foundation
import HTTPServer
import Kafka
import RegistrarClient
import S3Store
import Support

/// `registrar gateway`: the HTTPS edge the apps call; prints the URL it serves on its first line. Started while its
/// broker cannot be reached it serves at once (`/readyz` 503, requests `503` with `Retry-After`) and follows the broker
/// once it is back; started before the local broker wrote its address, it waits for it, alive and not ready on the
/// operations endpoint (saying so), rather than exiting.
public enum GatewayCommand {
    public static let spec = CommandSpec(
        name: "registrar gateway", summary: "serve the apps' HTTPS endpoints, publishing through the topics",
        usage: "[--host ADDRESS] [--port N] [--tls-cert PEM --tls-key PEM] --clients FILE",
        options: [
            .value("host", "Numeric address to listen on; plain HTTP only on loopback", default: "127.0.0.1"),
            .value("port", "Port to listen on (0: any free port)", default: "8443"),
        ] + TLSOptions.specs + [
            .value("clients", "OAuth clients, JSON {\"clients\":[{\"id\":…,\"secret\":…}]}", environment: "REGISTRAR_OAUTH_CLIENTS"),
            .value("jwks", "JSON Web Key Set to serve (re-read when rewritten); default: <keys-dir>/jwks.json"),
            .value("access-token-lifetime", "Seconds an access token is valid: a key retired longer ago (plus 60 s) is no longer served",
                   default: "900"),
            .value("issuer", "The OAuth issuer the metadata names (RFC 8414): the public HTTPS URL apps reach the gateway at, e.g. "
                   + "https://auth.example.com; default: the URL it serves on", environment: "REGISTRAR_ISSUER"),
            .value("wait", "Seconds a request is held for its outcome before 202 (503 for tokens)", default: "10"),
            .value("outcome-window", "Seconds an accepted request's outcome is awaited (published again on a moved broker or a failed "
                   + "publish); a retry after it publishes the request again", default: "600"),
            .value("requests-per-minute", "Requests per client address per minute, every endpoint", default: "120"),
            .value("codes-per-hour", "Code requests per email address per hour", default: "20"),
            .value("sign-ins-per-minute", "Token and account requests per email address per minute", default: "10"),
            .value("trusted-proxies", "Comma-separated CIDR ranges of proxies whose Forwarded/X-Forwarded-For name the client"),
            .value("allowed-origins", "Comma-separated browser origins (https://host[:port]) allowed; any other Origin is refused"),
            .value("body-budget", "MiB of request bodies all connections may hold at once (a quarter, at least one registration, per "
                   + "address); past it 503",
                   default: "64"),
            .value("connections-per-address", "Connections one peer address may hold (0: no limit; raise it behind a proxy)", default: "64"),
            .value("header-timeout", "Seconds a request's headers may take; its body as long plus the --min-body-rate time", default: "10"),
            .value("min-body-rate", "KiB/s a request body must average, or the connection is closed", default: "32"),
            .value("tls-priorities", "GnuTLS priority string (default: TLS 1.3/1.2, ECDHE, AEAD ciphers only)"),
            .value("broker-liveness", "Seconds the broker may be unreachable before /healthz fails", default: "120"),
            .value("public-key", "The account worker's public key (base64)", environment: "REGISTRAR_PUBLIC_KEY"),
            OutcomeKeySource.option,
            .value("reply-key-file", "The secret (0600, created if missing) each request's reply key, request id and status URL are "
                   + "derived from; replicas sharing it answer each other's retries; default: a new one in memory"),
            OperationsEndpoint.option,
        ] + ConnectionOptions.specs + BackendOptions.specs)

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let dataDirectory = parsed.value("data-dir") ?? "data"
            let tls = try TLSOptions.files(parsed, spec: spec)
            let keysDirectory = parsed.value("keys-dir") ?? EmbeddedBackends(dataDirectory).keysDirectory
            let keySet = try ServedKeySet(jwksPath: parsed.value("jwks") ?? keysDirectory + "/" + KeyFileName.jwks,
                                          retiredPath: keysDirectory + "/" + KeyFileName.signing + ".retired",
                                          tokenLifetime: Double(try parsed.integer("access-token-lifetime") ?? 900))
            var configuration = GatewayConfiguration(clients: try OAuthClients.load(from: try parsed.required("clients")),
                                                     jwks: { keySet.json() }, tls: tls != nil)
            configuration.issuer = try parsed.value("issuer").map(issuer)
            configuration.wait = .seconds(try parsed.integer("wait") ?? 10)
            configuration.listening = .seconds(try parsed.integer("outcome-window") ?? 600)
            configuration.retention = max(configuration.retention, configuration.listening)
            configuration.requestsPerMinutePerAddress = try parsed.integer("requests-per-minute") ?? 120
            configuration.codesPerHourPerEmail = try parsed.integer("codes-per-hour") ?? 20
            configuration.signInsPerMinutePerEmail = try parsed.integer("sign-ins-per-minute") ?? 10
            configuration.trustedProxies = try parsed.value("trusted-proxies").map { try AddressRange.list($0) } ?? []
            configuration.allowedOrigins = Set((parsed.value("allowed-origins") ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            })
            configuration.brokerLiveness = .seconds(try parsed.integer("broker-liveness") ?? 120)
            let replySecret = try parsed.value("reply-key-file").map { try ReplySecret.loadOrCreate(at: $0) } ?? .generate()
            let (publicKey, verifier) = (try PublicKeySource.load(parsed), try OutcomeKeySource.verifier(parsed, defaultKeysDirectory: keysDirectory))
            let objects = try BackendOptions(parsed, dataDirectory: dataDirectory).objectStore()

            let clients = ClientSupply(logger: Logger(component: "gateway"))
            let gateway = Gateway(clients: clients, replySecret: replySecret, staging: objects, configuration: configuration)
            let startup = StartupState()
            let operations = try OperationsEndpoint.start(parsed, component: "gateway") {
                let health = gateway.health
                return HealthReport(isAlive: health.isAlive, notReadyBecause: (startup.waitingFor.map { [$0] } ?? []) + health.notReadyBecause)
            }
            let shutdown = ShutdownSignal()
            guard let connection = try await ConnectionOptions.awaitingBroker(parsed, until: shutdown, waiting: startup.waiting) else {
                await operations?.stop()
                return .success
            }
            startup.started()
            let stopClients = ShutdownSignal(signals: [])
            let supplying = Task {
                await clients.supply(from: connection.bootstrapServers, following: connection.bootstrapFile, until: stopClients) { address in
                    try RegistrarClient(kafka: connection.kafka(clientID: "registrar-gateway", bootstrapServers: address), publicKey: publicKey,
                                        verifier: verifier, name: "registrar-gateway", replySecret: replySecret)
                }
            }
            let probing = Task { await gateway.probeBroker() }
            let host = try parsed.required("host")
            var http = HTTPServerConfiguration(host: host, port: try parsed.integer("port") ?? 8443, tls: tls, bodyLimit: Gateway.bodyLimit)
            http.bodyBudget = (try parsed.integer("body-budget") ?? 64) << 20
            http.bodyBudgetPerAddress = max(http.bodyBudget / 4, Gateway.bodyLimit(method: "POST", path: "/accounts"))
            http.connectionsPerAddress = try parsed.integer("connections-per-address") ?? 64
            http.headerTimeout = .seconds(try parsed.integer("header-timeout") ?? 10)
            http.minimumBodyRate = (try parsed.integer("min-body-rate") ?? 32) << 10
            http.tlsPriorities = parsed.value("tls-priorities") ?? HTTPServerConfiguration.defaultTLSPriorities
            http.screen = gateway.screen
            let server = try HTTPServer(http, handler: gateway.handle)
            gateway.serving(at: server.url(on: host))
            FileHandle.standardOutput.write(Data((server.url(on: host) + "\n").utf8))
            await shutdown.wait()
            await server.stop()
            await operations?.stop()
            probing.cancel()
            stopClients.trigger()
            await supplying.value
            return .success
        }
    }

    /// `value` if it is an issuer identifier: an https URL without query or fragment (RFC 8414 §2), without a trailing `/`.
    static func issuer(_ value: String) throws(UsageError) -> String {
        guard let url = URL(string: value), url.scheme == "https", url.host != nil, url.query == nil, url.fragment == nil else {
            throw UsageError.invalid("--issuer must be an https URL without query or fragment, e.g. https://auth.example.com", spec.helpText)
        }
        return value.hasSuffix("/") ? String(value.dropLast()) : value
    }
}
