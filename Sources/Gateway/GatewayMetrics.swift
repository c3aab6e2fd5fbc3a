import HTTPServer
import Support

/// What the edge counts (`MetricsRegistry.shared`): requests by endpoint and status, their durations, those in
/// flight, and the rate limiters' refusals.
enum GatewayMetrics {
    private static let requests = MetricsRegistry.shared.counter(
        "registrar_gateway_requests_total", "HTTP requests answered, by endpoint and status", labels: ["endpoint", "status"])
    private static let durations = MetricsRegistry.shared.histogram(
        "registrar_gateway_request_duration_seconds", "From a request's headers to its answer, by endpoint", labels: ["endpoint"])
    private static let inFlight = MetricsRegistry.shared.gauge(
        "registrar_gateway_requests_in_flight", "Requests read and not yet answered")
    private static let limited = MetricsRegistry.shared.counter(
        "registrar_gateway_rate_limited_total", "Requests refused 429 by a rate limit, by limit (address, codes_per_email, sign_ins_per_email)",
        labels: ["limit"])
    /// The endpoints counted by path, the gateway's routes; any other path is counted as `other`, so clients cannot grow the series.
    static let endpoints = Set(Gateway.routes.keys)
    /// The series of each endpoint exported from the start: the success and the answers alerts watch (limits, failures).
    static let declaredStatuses = ["200", "429", "502", "503", "504"]

    /// Exports each endpoint's declared statuses and durations, and the requests in flight, at zero.
    static func declare() {
        for endpoint in endpoints.union(["/requests/{id}", "/me/sessions/{id}", "other"]) {
            for status in declaredStatuses { requests.declare(endpoint, status) }
            durations.declare(endpoint)
        }
        inFlight.add(0)
    }

    /// Exports the refusals of the limiter `name` at zero.
    static func declare(limiter name: String) { limited.declare(name) }

    static func refused(by limiter: String) { limited.increment(limiter) }

    static func began() { inFlight.add(1) }

    static func ended() { inFlight.add(-1) }

    /// The endpoint a path is counted and logged as: a status URL without its capability, a session without its id, an
    /// unknown path as `other`.
    static func endpoint(of path: String) -> String {
        if endpoints.contains(path) { return path }
        if path.hasPrefix(Gateway.statusPrefix) { return "/requests/{id}" }
        return path.hasPrefix(Gateway.sessionsPath + "/") ? "/me/sessions/{id}" : "other"
    }

    /// Counts an answer of `endpoint`.
    static func answered(_ endpoint: String, with status: Int, in duration: Duration) {
        requests.increment(endpoint, String(status))
        durations.observe(duration.seconds, endpoint)
    }
}
