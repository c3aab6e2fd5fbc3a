import Foundation
import HTTPServer

/// The gateway's JSON answers.
enum Answer {
    /// `object` as JSON with `status` and the extra `headers`.
    static func json(_ status: Int, _ object: [String: any Sendable], headers: [(String, String)] = []) -> HTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")] + headers.map { ($0.0, $0.1) }),
                            body: Array(body))
    }

    /// An error answer `{"error": code, "error_description": description}` (RFC 6749 §5.2's shape, used everywhere).
    static func error(_ status: Int, _ code: String, _ description: String, headers: [(String, String)] = []) -> HTTPResponse {
        json(status, ["error": code, "error_description": description], headers: headers)
    }

    /// The answer to a refused body.
    static func refused(_ refusal: RequestBody.Refusal) -> HTTPResponse {
        switch refusal {
        case .unsupportedMediaType(let accepted):
            error(415, "unsupported_media_type", "Content-Type must be \(accepted.joined(separator: " or ")) (UTF-8)")
        case .malformed(let why):
            error(400, "invalid_request", why)
        }
    }

    /// 429 with `Retry-After`.
    static func tooManyRequests(retryAfter seconds: Int) -> HTTPResponse {
        error(429, "rate_limited", "Too many requests; retry after \(seconds) s.", headers: [("Retry-After", String(seconds))])
    }
}
