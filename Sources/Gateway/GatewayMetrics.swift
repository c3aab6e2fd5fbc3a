import HTTPServer
import Metrics

/// What the edge counts (`MetricsRegistry.shared`): requests by endpoint and status, and their durations.
enum GatewayMetrics {
    private static let requests = MetricsRegistry.shared.counter(
        "registrar_gateway_requests_total", "HTTP requests answered, by endpoint and status", labels: ["endpoint", "status"])
    private static let durations = MetricsRegistry.shared.histogram(
        "registrar_gateway_request_duration_seconds", "From a request's headers to its answer, by endpoint", labels: ["endpoint"])
    /// The endpoints counted by path; any other path is counted as `other`, so clients cannot grow the series.
    static let endpoints: Set<String> = ["/healthz", "/readyz", "/.well-known/jwks.json", "/email/getCode", "/oauth/token", "/accounts",
                                         "/me", "/me/password", "/password/reset", "/me/email"]

    /// The endpoint a path is counted and logged as: a status URL without its capability, an unknown path as `other`.
    static func endpoint(of path: String) -> String {
        endpoints.contains(path) ? path : path.hasPrefix(Gateway.statusPrefix) ? "/requests/{capability}" : "other"
    }

    static func answered(_ endpoint: String, with status: Int, in duration: Duration) {
        requests.increment(endpoint, String(status))
        durations.observe(duration.seconds, endpoint)
    }
}
