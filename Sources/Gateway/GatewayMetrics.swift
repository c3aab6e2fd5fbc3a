import HTTPServer
import Metrics

/// What the edge counts (`MetricsRegistry.shared`): requests by endpoint and status, and their durations.
enum GatewayMetrics {
    private static let requests = MetricsRegistry.shared.counter(
        "registrar_gateway_requests_total", "HTTP requests answered, by endpoint and status", labels: ["endpoint", "status"])
    private static let durations = MetricsRegistry.shared.histogram(
        "registrar_gateway_request_duration_seconds", "From a request's body read to its answer, by endpoint", labels: ["endpoint"])
    /// The endpoints counted by path; any other path is counted as `other`, so clients cannot grow the series.
    static let endpoints: Set<String> = ["/healthz", "/readyz", "/.well-known/jwks.json", "/email/getCode", "/oauth/token", "/accounts",
                                         "/me/password", "/password/reset", "/me/email"]

    static func answered(_ request: HTTPRequest, with status: Int, in duration: Duration) {
        let endpoint = endpoints.contains(request.path) ? request.path
            : request.path.hasPrefix(Gateway.statusPrefix) || request.path.hasPrefix("/registrations/") ? "/requests/{id}" : "other"
        requests.increment(endpoint, String(status))
        durations.observe(duration.seconds, endpoint)
    }
}
