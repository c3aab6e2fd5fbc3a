import Crypto
import Domain
import Foundation
import HTTPServer
import RegistrarClient
import Registration
import Support
import Synchronization

/// The HTTPS edge: the apps' requests turned into requests on the topics through a `RegistrarClient`
/// (one producer and one shared outcome listener for every request in flight), and the outcomes into answers.
public final class Gateway: Sendable {
    let client: RegistrarClient
    /// Where a large avatar is staged for the image worker (a claim check); nil: avatars travel inline only.
    let objects: (any ObjectStore)?
    let configuration: GatewayConfiguration
    let logger: Logger
    let pending = PendingAnswers()
    let addressLimiter: RateLimiter
    let codeLimiter: RateLimiter
    let signInLimiter: RateLimiter
    /// The OAuth issuer (RFC 8414): the configured one, else the URL the gateway serves on once it is known.
    private let servedIssuer: Mutex<String>

    public init(client: RegistrarClient, staging objects: (any ObjectStore)?, configuration: GatewayConfiguration,
                logger: Logger = Logger(component: "gateway")) {
        self.client = client
        self.objects = objects
        self.configuration = configuration
        self.logger = logger
        addressLimiter = RateLimiter("address", limit: configuration.requestsPerMinutePerAddress, per: .seconds(60))
        codeLimiter = RateLimiter("codes_per_email", limit: configuration.codesPerHourPerEmail, per: .seconds(3600))
        signInLimiter = RateLimiter("sign_ins_per_email", limit: configuration.signInsPerMinutePerEmail, per: .seconds(60))
        servedIssuer = Mutex(configuration.issuer ?? "https://localhost")
        GatewayMetrics.declare()
    }

    /// The OAuth issuer the metadata names.
    var issuer: String { servedIssuer.withLock { $0 } }

    /// Tells the gateway the URL it serves on: the issuer, unless one was configured.
    public func serving(at url: String) {
        guard configuration.issuer == nil else { return }
        servedIssuer.withLock { $0 = url.hasSuffix("/") ? String(url.dropLast()) : url }
    }

    /// The most body bytes a request to `path` may carry: a registration the image worker's avatar limit and its fields.
    public static func bodyLimit(method: String, path: String) -> Int {
        path == "/accounts" ? ContractLimits.avatarBytes + 64 * 1024 : 8 * 1024
    }

    /// Answers `request`, with the security headers, and logs one line (never a body or a credential).
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        GatewayMetrics.began()
        var response = await route(request)
        response.addSecurityHeaders(tls: configuration.tls)
        let duration = ContinuousClock.now - started
        GatewayMetrics.answered(request, with: response.status, in: duration)
        logger.info("request", ["method": request.method, "path": request.path, "status": response.status,
                                "ms": duration.milliseconds, "client": request.clientAddress])
        return response
    }

    private func route(_ request: HTTPRequest) async -> HTTPResponse {
        let routes: [String: (method: String, answer: @Sendable (HTTPRequest) async -> HTTPResponse)] = [
            "/healthz": ("GET", { _ in Answer.json(200, ["status": "ok"]) }),
            "/readyz": ("GET", { [client] _ in
                (try? await offload { client.isReachable(timeout: .seconds(2)) }) == true ? Answer.json(200, ["status": "ready"])
                    : Answer.error(503, "broker_unreachable", "The broker cannot be reached.")
            }),
            Self.metadataPath: ("GET", describeServer),
            Self.jwksPath: ("GET", { [configuration] _ in
                HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "public, max-age=300")]),
                             body: Array(configuration.jwks.utf8))
            }),
            "/email/getCode": ("POST", requestCode),
            Self.tokenPath: ("POST", issueTokens),
            "/accounts": ("POST", register),
            "/me/password": ("POST", changePassword),
            "/password/reset": ("POST", resetPassword),
            "/me/email": ("POST", changeEmail),
            "/me": ("GET", showProfile),
            Self.revocationPath: ("POST", revokeToken),
            "/me/sign-out": ("POST", signOutSession),
            "/me/sign-out-everywhere": ("POST", signOutEverywhere),
            Self.sessionsPath: ("GET", listSessions),
        ]
        if request.method == "GET", let prefix = [Self.statusPrefix, "/registrations/"].first(where: request.path.hasPrefix) {
            return status(of: String(request.path.dropFirst(prefix.count)))
        }
        if request.path.hasPrefix(Self.sessionsPath + "/") {
            if let wait = addressLimiter.admit(request.clientAddress) { return Answer.tooManyRequests(retryAfter: wait) }
            return await endSession(request)
        }
        guard let route = routes[request.path] else { return Answer.error(404, "not_found", "No such endpoint.") }
        guard request.method == route.method else {
            return Answer.error(405, "method_not_allowed", "Use \(route.method).", headers: [("Allow", route.method)])
        }
        // Every route that publishes a request.
        if route.method == "POST" || request.path.hasPrefix("/me"), let wait = addressLimiter.admit(request.clientAddress) {
            return Answer.tooManyRequests(retryAfter: wait)
        }
        return await route.answer(request)
    }

    /// Where a request's answer is found after a `202`.
    static let statusPrefix = "/requests/"

    private func status(of id: String) -> HTTPResponse {
        switch pending.status(of: id) {
        case .answered(let response)?: response
        case .pending?: Answer.json(202, ["requestId": id, "status": Self.statusPrefix + id])
        case .conflict?, nil: Answer.error(404, "not_found", "No such request.")
        }
    }

    /// Runs `work` once per `Idempotency-Key` (or a new one) and body, waiting at most the configured time.
    /// `shown`: a late answer is found at the status URL (`202`); else `503` and retry with the key.
    ///
    /// The request id `work` publishes under is the key scoped to the request: the SHA-256 of the key, the method,
    /// path, client credentials and body. A retry through any replica (sharing `--reply-key-file`) gets the same id,
    /// so the workers' answer memo answers it once; a guessed key with any other body or client is another request
    /// and can never be given someone else's answer.
    func idempotent(_ request: HTTPRequest, shown: Bool, _ work: @escaping @Sendable (String) async -> HTTPResponse) async -> HTTPResponse {
        let key = request.headers["Idempotency-Key"] ?? UUID().uuidString.lowercased()
        if let failure = RequestId.validate(key) { return Answer.error(400, "invalid_request", "Idempotency-Key: " + failure.message) }
        let digest = sha256(Array("\(request.method) \(request.path)\n\(request.headers["Authorization"] ?? "")\n".utf8) + request.body)
        let id = sha256Hex(Array("registrar-idempotency-key\n\(key)\n".utf8) + digest)
        switch await pending.answer(key: key, id: id, digest: digest, shown: shown, within: configuration.wait, { await work(id) }) {
        case .answered(let response):
            return response
        case .conflict:
            return Answer.error(422, "idempotency_key_reused", "This Idempotency-Key was used for a different request.")
        case .pending where shown:
            return Answer.json(202, ["requestId": id, "status": Self.statusPrefix + id], headers: [("Location", Self.statusPrefix + id)])
        case .pending:
            return Answer.error(503, "temporarily_unavailable", "No answer yet; retry with the same Idempotency-Key.",
                                headers: [("Retry-After", "1")])
        }
    }

    /// What a failed wait for an outcome is answered with.
    func unavailable(_ error: any Error) -> HTTPResponse {
        if error is RegistrarClient.TimedOut { return Answer.error(504, "outcome_timeout", "No outcome came in time.") }
        logger.error("request failed", ["error": String(describing: error)])
        return Answer.error(503, "temporarily_unavailable", "The request could not be published.")
    }
}
