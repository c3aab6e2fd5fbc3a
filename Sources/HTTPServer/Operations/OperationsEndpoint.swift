import Foundation
import Support

/// What a process says of itself on `/healthz` and `/readyz`.
public struct HealthReport: Sendable {
    /// Whether its main loop runs (`/healthz` 200, else 503).
    public var isAlive: Bool
    /// Why it is not ready (`/readyz` 503 listing them); empty when it is ready (200).
    public var notReadyBecause: [String]

    public init(isAlive: Bool, notReadyBecause: [String]) {
        self.isAlive = isAlive
        self.notReadyBecause = notReadyBecause
    }
}

/// A process's operations endpoint: `/metrics` (Prometheus text format, with the `process_*` families and
/// `registrar_build_info`), `/healthz` and `/readyz`, on the address of `--metrics-listen`. Plain HTTP: it
/// carries nothing secret, and is for the cluster's network (or loopback) only.
public final class OperationsEndpoint: Sendable {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// The option that turns the endpoint on, shared by every process that has one.
    public static let option = CommandSpec.Option.value(
        "metrics-listen", "Serve /metrics, /healthz and /readyz on host:port (plain HTTP; off unless given)",
        environment: "REGISTRAR_METRICS_LISTEN")

    private let server: HTTPServer
    public var port: Int { server.port }

    /// Listens on `address` (`host:port`; port 0 for any free one).
    public init(listening address: String, registry: MetricsRegistry = .shared,
                health: @escaping @Sendable () -> HealthReport) throws {
        guard let (host, port) = HTTPServerConfiguration.hostAndPort(address) else {
            throw HTTPServerError("--metrics-listen expects host:port, e.g. 127.0.0.1:9464; got '\(address)'")
        }
        ProcessMetrics.install(in: registry)
        var configuration = HTTPServerConfiguration(host: host, port: port) { _, _ in 0 }
        configuration.allowsPlainHTTPOffLoopback = true
        server = try HTTPServer(configuration) { request in
            Self.answer(request, registry: registry, health: health())
        }
    }

    /// The endpoint `--metrics-listen` in `parsed` asks for (nil when not given), its port logged for `component`.
    public static func start(_ parsed: ParsedArguments, component: String,
                             health: @escaping @Sendable () -> HealthReport) throws -> OperationsEndpoint? {
        try parsed.value("metrics-listen").map { address in
            let endpoint = try OperationsEndpoint(listening: address, health: health)
            Logger(component: component).info("operations endpoint listening (metrics, healthz, readyz)", ["port": endpoint.port])
            return endpoint
        }
    }

    public func stop() async { await server.stop() }

    static func answer(_ request: HTTPRequest, registry: MetricsRegistry, health: @autoclosure () -> HealthReport) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { return .text(405, "GET only\n") }
        switch request.path {
        case "/metrics":
            var response = HTTPResponse(status: 200, body: Array(registry.exposition().utf8))
            response.headers.add("Content-Type", contentType)
            return response
        case "/healthz":
            return health().isAlive ? .text(200, "ok\n") : .text(503, "the worker loop is not running\n")
        case "/readyz":
            let reasons = health().notReadyBecause
            return reasons.isEmpty ? .text(200, "ready\n") : .text(503, reasons.joined(separator: "\n") + "\n")
        default:
            return .text(404, "not found: /metrics, /healthz and /readyz are served here\n")
        }
    }
}
