import HTTPServer

/// Browsers: a request carrying an `Origin` (every cross-site request a page makes does) is refused unless the origin
/// is on the configured allow-list, before anything is read or published, so no web page can make its visitors
/// request codes or sign in. An allowed origin gets CORS answers (RFC 6454 origins, the Fetch standard's preflight).
struct OriginPolicy: Sendable {
    var allowed: Set<String>

    /// The refusal of `request`'s origin, or nil when it has none or an allowed one.
    func refusal(of request: HTTPRequest) -> HTTPResponse? {
        guard let origin = request.headers["Origin"], !allowed.contains(origin) else { return nil }
        return Answer.error(403, "origin_not_allowed", "Requests from this origin are not accepted.")
    }

    /// The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) from an allowed origin.
    func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "OPTIONS", request.headers["Origin"] != nil, request.headers["Access-Control-Request-Method"] != nil else {
            return nil
        }
        return HTTPResponse(status: 204, headers: HTTPHeaders([
            ("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE"),
            ("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key"),
            ("Access-Control-Max-Age", "600"),
        ]))
    }

    /// Adds the CORS headers of an answer to an allowed origin.
    func addHeaders(to response: inout HTTPResponse, for request: HTTPRequest) {
        guard let origin = request.headers["Origin"], allowed.contains(origin) else { return }
        response.headers.add("Access-Control-Allow-Origin", origin)
        response.headers.add("Access-Control-Expose-Headers", "Location, Retry-After, WWW-Authenticate")
        response.headers.add("Vary", "Origin")
    }
}
