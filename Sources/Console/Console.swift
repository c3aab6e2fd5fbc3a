import Crypto
import EventTransport
import Foundation
import HTTPServer
import Kafka
import Registration
import Support

/// The operator console's answers: the overview on `GET /`, and the guarded replay of a dead letter on
/// `POST /replay` (a CSRF token from the page it came from, same-origin only, then a confirmation step).
public final class Console: Sendable {
    let kafka: KafkaConfiguration
    private let members: GroupMembers
    let audit: RegistrationAudit
    let grace: Duration
    /// Seconds between the overview's reloads.
    let refresh: Int
    let tls: Bool
    private let tokens = FormTokens()
    private let logger = Logger(component: "console")

    public init(kafka: KafkaConfiguration, isLocalBroker: Bool, audit: RegistrationAudit, grace: Duration, refresh: Int, tls: Bool) throws {
        self.kafka = kafka
        members = try GroupMembers(kafka: kafka, isLocalBroker: isLocalBroker)
        self.audit = audit
        self.grace = grace
        self.refresh = refresh
        self.tls = tls
    }

    /// No scripts, nothing loaded from elsewhere; the one style sheet by its hash; forms post only here.
    static let policy = "default-src 'none'; style-src 'sha256-\(Data(sha256(Array(HTML.styleSheet.utf8))).base64EncodedString())'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// The largest body a replay form sends.
    public static let bodyLimit = 4 * 1024

    /// Answers `request` with the security headers, and logs one line.
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var response = await route(request)
        response.addSecurityHeaders(tls: tls, policy: Self.policy)
        logger.info("request", ["method": request.method, "path": request.path, "status": response.status, "client": request.clientAddress])
        return response
    }

    private func route(_ request: HTTPRequest) async -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/"):
            let view = await ConsoleView.read(kafka: kafka, members: members.describe, audit: audit, grace: grace)
            return Self.html(200, ConsolePage.overview(view, grace: grace, refresh: refresh, token: tokens.issue()))
        case ("POST", "/replay"):
            return await replay(request)
        case (_, "/"), (_, "/replay"):
            var response = Self.html(405, ConsolePage.problem("Method \(request.method) is not allowed here."))
            response.headers.add("Allow", request.path == "/" ? "GET" : "POST")
            return response
        default:
            return Self.html(404, ConsolePage.problem("No such page."))
        }
    }

    private func replay(_ request: HTTPRequest) async -> HTTPResponse {
        guard isSameOrigin(request) else { return Self.html(403, ConsolePage.problem("A request from another site is refused.")) }
        let form = FormBody(request.body)
        guard let token = form["token"], tokens.redeem(token) else {
            return Self.html(403, ConsolePage.problem("This form has expired or was used already; reload the console and try again."))
        }
        do {
            guard let position = form["letter"], let letter = try await deadLetter(at: position) else {
                return Self.html(404, ConsolePage.problem("No such dead letter."))
            }
            guard form["confirm"] == "yes" else { return Self.html(200, ConsolePage.confirmation(letter, token: tokens.issue())) }
            let lines = try await DeadLetterCommand.replay([letter], kafka: kafka)
            logger.info("dead letter replayed", ["letter": position, "client": request.clientAddress])
            return Self.html(200, ConsolePage.replayed(lines))
        } catch {
            logger.error("replay failed", ["error": String(describing: error)])
            return Self.html(503, ConsolePage.problem("The replay failed: \(error)"))
        }
    }

    /// The dead letter at `topic:partition:offset`, nil when there is none (or the topic is no dead-letter topic).
    private func deadLetter(at position: String) async throws -> KafkaMessage? {
        let parts = position.split(separator: ":")
        guard parts.count == 3, DeadLetterCommand.topics.contains(String(parts[0])),
              let partition = Int32(parts[1]), let offset = Int64(parts[2]) else { return nil }
        return try await TopicSnapshot.read([String(parts[0])], configuration: kafka) {
            $0.partition == partition && $0.offset == offset
        }.first
    }

    /// Whether the browser says the request comes from the console's own pages (a request without the
    /// headers, e.g. from curl, still needs a token from a page).
    private func isSameOrigin(_ request: HTTPRequest) -> Bool {
        if let site = request.headers["Sec-Fetch-Site"], !["same-origin", "none"].contains(site) { return false }
        guard let origin = request.headers["Origin"], origin != "null" else { return true }
        return origin == "\(tls ? "https" : "http")://\(request.headers["Host"] ?? "")"
    }

    private static func html(_ status: Int, _ page: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]), body: Array(page.utf8))
    }
}
