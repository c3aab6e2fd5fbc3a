import Backends
import Crypto
import EventTransport
import Foundation
import HTTPServer
import Operations
import RegistrarClient
import Support

/// `registrar gateway`: the HTTPS edge the apps call; prints the URL it serves on its first line.
public enum GatewayCommand {
    public static let spec = CommandSpec(
        name: "registrar gateway", summary: "serve the apps' HTTPS endpoints, publishing through the topics",
        usage: "[--host ADDRESS] [--port N] [--tls-cert PEM --tls-key PEM] --clients FILE",
        options: [
            .value("host", "Numeric address to listen on; plain HTTP only on loopback", default: "127.0.0.1"),
            .value("port", "Port to listen on (0: any free port)", default: "8443"),
        ] + TLSOptions.specs + [
            .value("clients", "OAuth clients, JSON {\"clients\":[{\"id\":…,\"secret\":…}]}", environment: "REGISTRAR_OAUTH_CLIENTS"),
            .value("jwks", "JSON Web Key Set to serve; default: <data-dir>/keys/jwks.json"),
            .value("issuer", "The OAuth issuer the metadata names (RFC 8414): the public HTTPS URL apps reach the gateway at, e.g. "
                   + "https://auth.example.com; default: the URL it serves on", environment: "REGISTRAR_ISSUER"),
            .value("wait", "Seconds a request is held for its outcome before 202", default: "10"),
            .value("requests-per-minute", "Requests per client address per minute", default: "120"),
            .value("codes-per-hour", "Code requests per email address per hour", default: "20"),
            .value("sign-ins-per-minute", "Token requests per email address per minute", default: "10"),
            .value("body-budget", "MiB of request bodies all connections may hold at once; past it 503 with Retry-After", default: "64"),
            .value("public-key", "The account worker's public key (base64)", environment: "REGISTRAR_PUBLIC_KEY"),
            .value("reply-key-file", "The reply key pair outcomes are sealed to (0600, created if missing); replicas sharing it "
                   + "answer each other's retries (Idempotency-Key); default: a new one in memory"),
            OperationsEndpoint.option,
        ] + ConnectionOptions.specs + BackendOptions.specs)

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let connection = try ConnectionOptions(parsed)
            let tls = try TLSOptions.files(parsed, spec: spec)
            var configuration = GatewayConfiguration(
                clients: try OAuthClients.load(from: try parsed.required("clients")),
                jwks: try String(contentsOfFile: parsed.value("jwks") ?? EmbeddedBackends(connection.dataDirectory).keysDirectory
                                 + "/" + KeyFileName.jwks, encoding: .utf8),
                tls: tls != nil)
            configuration.issuer = try parsed.value("issuer").map(issuer)
            configuration.wait = .seconds(try parsed.integer("wait") ?? 10)
            configuration.requestsPerMinutePerAddress = try parsed.integer("requests-per-minute") ?? 120
            configuration.codesPerHourPerEmail = try parsed.integer("codes-per-hour") ?? 20
            configuration.signInsPerMinutePerEmail = try parsed.integer("sign-ins-per-minute") ?? 10
            let shutdown = ShutdownSignal()
            let replyKeys = try parsed.value("reply-key-file").map { try SealingKeyPair.loadOrCreate(at: $0) } ?? .generate()
            return try await RegistrarClient.with(kafka: connection.kafka(clientID: "registrar-gateway"),
                                                  publicKey: try PublicKeySource.load(parsed), name: "registrar-gateway",
                                                  replyKeys: replyKeys) { client in
                let objects = try BackendOptions(parsed, dataDirectory: connection.dataDirectory).objectStore()
                let gateway = Gateway(client: client, staging: objects, configuration: configuration)
                let host = try parsed.required("host")
                var http = HTTPServerConfiguration(host: host, port: try parsed.integer("port") ?? 8443, tls: tls, bodyLimit: Gateway.bodyLimit)
                http.bodyBudget = (try parsed.integer("body-budget") ?? 64) << 20
                let server = try HTTPServer(http, handler: gateway.handle)
                let operations = try OperationsEndpoint.start(parsed, component: "gateway") {
                    HealthReport(isAlive: true, notReadyBecause: client.isReachable(timeout: .seconds(2)) ? [] : ["the broker cannot be reached"])
                }
                gateway.serving(at: server.url(on: host))
                FileHandle.standardOutput.write(Data((server.url(on: host) + "\n").utf8))
                await shutdown.wait()
                await server.stop()
                await operations?.stop()
                return .success
            }
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
