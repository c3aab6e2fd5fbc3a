import Accounts
import Crypto
import Domain
import Foundation
import HTTPServer
import RegistrarClient
import Support
import Synchronization

/// The HTTPS edge: the apps' requests turned into requests on the topics through the current `RegistrarClient` of a
/// `ClientSupply` (one producer and one shared outcome listener for every request in flight, replaced when the
/// local broker moves), and the genuine outcomes into answers.
public final class Gateway: Sendable {
    let clients: ClientSupply
    let identity: RequestIdentity
    /// Where a large avatar is staged for the image worker (a claim check); nil: avatars travel inline only.
    let objects: (any ObjectStore)?
    let configuration: GatewayConfiguration
    let logger: Logger
    let pending: PendingAnswers
    let broker = BrokerHealth()
    let origins: OriginPolicy
    let addressLimiter: RateLimiter
    let codeLimiter: RateLimiter
    let signInLimiter: RateLimiter
    /// The OAuth issuer (RFC 8414): the configured one, else the URL the gateway serves on once it is known.
    private let servedIssuer: Mutex<String>

    /// A gateway publishing through `clients`, whose request ids and status capabilities are keyed with `replySecret`
    /// (the one its clients derive reply keys from).
    public init(clients: ClientSupply, replySecret: ReplySecret, staging objects: (any ObjectStore)?,
                configuration: GatewayConfiguration, logger: Logger = Logger(component: "gateway")) {
        self.clients = clients
        identity = RequestIdentity(replySecret)
        self.objects = objects
        self.configuration = configuration
        self.logger = logger
        pending = PendingAnswers(retention: configuration.retention)
        origins = OriginPolicy(allowed: configuration.allowedOrigins)
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

    /// The most body bytes a request to `path` may carry: a registration or a profile update the image worker's avatar limit
    /// and its fields.
    public static func bodyLimit(method: String, path: String) -> Int {
        path == "/accounts" || (method == "PATCH" && path == "/me") ? ContractLimits.avatarBytes + 64 * 1024 : 8 * 1024
    }

    /// Looks at a request as soon as its headers are in (`HTTPServerConfiguration.screen`), before its body is read:
    /// the client address resolved (trusted proxies), then every request counted by the per-address limit, and a
    /// browser `Origin` not on the allow-list refused. A refusal is answered at once, logged and counted.
    public func screen(_ request: HTTPRequest) -> Screening {
        var request = request
        request.clientAddress = ForwardedFor.clientAddress(of: request, trusting: configuration.trustedProxies)
        let refusal = addressLimiter.admit(request.clientAddress).map(Answer.tooManyRequests) ?? origins.refusal(of: request)
        guard let refusal else { return .proceed(request) }
        return .answer(finish(request, refusal, started: .now))
    }

    /// Answers a request `screen` let through, with the security headers, and logs one line (never a body, a
    /// credential or a status capability).
    public func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        GatewayMetrics.began()
        defer { GatewayMetrics.ended() }
        return finish(request, await route(request), started: started)
    }

    /// Screens and answers `request` as the server would: for in-process callers (tests, benchmarks).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch screen(request) {
        case .answer(let response): response
        case .proceed(let screened): await handle(screened)
        }
    }

    /// Probes the broker once a second until cancelled, for `/readyz` and `/healthz`.
    public func probeBroker() async {
        while !Task.isCancelled {
            await probeBrokerOnce()
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Asks the broker once (a metadata query of at most 2 s through the current client) and records what came of it.
    public func probeBrokerOnce() async {
        guard let client = clients.current else { return broker.record(reachable: false) }
        broker.record(reachable: (try? await offload { client.isReachable(timeout: .seconds(2)) }) ?? false)
    }

    /// What the operations endpoint (`--metrics-listen`) reports: alive unless the broker has been unreachable past
    /// the liveness bound, ready while it is reachable.
    public var health: (isAlive: Bool, notReadyBecause: [String]) {
        (broker.unreachableFor() <= configuration.brokerLiveness, broker.isReachable ? [] : ["the broker cannot be reached"])
    }

    private func finish(_ request: HTTPRequest, _ answer: HTTPResponse, started: ContinuousClock.Instant) -> HTTPResponse {
        var response = answer
        origins.addHeaders(to: &response, for: request)
        response.addSecurityHeaders(tls: configuration.tls)
        let duration = ContinuousClock.now - started
        let endpoint = GatewayMetrics.endpoint(of: request.path)
        GatewayMetrics.answered(endpoint, with: response.status, in: duration)
        logger.info("request", ["method": request.method, "path": endpoint, "status": response.status,
                                "ms": duration.milliseconds, "client": request.clientAddress])
        return response
    }

    /// What answers a request to one endpoint.
    typealias Answerer = @Sendable (Gateway, HTTPRequest) async -> HTTPResponse

    /// The endpoints by path: what answers each method they take. The metrics count requests by these paths.
    static let routes: [String: [String: Answerer]] = [
        "/healthz": ["GET": { gateway, _ in
            gateway.broker.unreachableFor() <= gateway.configuration.brokerLiveness ? Answer.json(200, ["status": "ok"])
                : Answer.error(503, "broker_unreachable", "The broker has been unreachable for longer than \(gateway.configuration.brokerLiveness).")
        }],
        "/readyz": ["GET": { gateway, _ in
            gateway.broker.isReachable ? Answer.json(200, ["status": "ready"]) : Answer.error(503, "broker_unreachable", "The broker cannot be reached.")
        }],
        metadataPath: ["GET": { await $0.describeServer($1) }],
        jwksPath: ["GET": { gateway, _ in
            HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json"), ("Cache-Control", "public, max-age=300")]),
                         body: Array(gateway.configuration.jwks().utf8))
        }],
        "/email/getCode": ["POST": { await $0.requestCode($1) }],
        tokenPath: ["POST": { await $0.issueTokens($1) }],
        "/accounts": ["POST": { await $0.register($1) }],
        "/me/password": ["POST": { await $0.changePassword($1) }],
        "/password/reset": ["POST": { await $0.resetPassword($1) }],
        "/me/email": ["POST": { await $0.changeEmail($1) }],
        "/me": ["GET": { await $0.showProfile($1) }, "PATCH": { await $0.updateProfile($1) }, "DELETE": { await $0.deleteAccount($1) }],
        revocationPath: ["POST": { await $0.revokeToken($1) }],
        "/me/sign-out": ["POST": { await $0.signOutSession($1) }],
        "/me/sign-out-everywhere": ["POST": { await $0.signOutEverywhere($1) }],
        sessionsPath: ["GET": { await $0.listSessions($1) }],
        "/me/export": ["GET": { await $0.exportAccount($1) }],
    ]

    private func route(_ request: HTTPRequest) async -> HTTPResponse {
        if let preflight = origins.preflight(request) { return preflight }
        if request.method == "GET", request.path.hasPrefix(Self.statusPrefix) {
            return status(capability: String(request.path.dropFirst(Self.statusPrefix.count)))
        }
        if request.path.hasPrefix(Self.sessionsPath + "/") { return await endSession(request) }
        guard let methods = Self.routes[request.path] else { return Answer.error(404, "not_found", "No such endpoint.") }
        guard let answer = methods[request.method] else {
            let allowed = methods.keys.sorted()
            return Answer.error(405, "method_not_allowed", "Use \(allowed.joined(separator: " or ")).",
                                headers: [("Allow", allowed.joined(separator: ", "))])
        }
        return await answer(self, request)
    }

    /// Where a request's answer is found after a `202`: followed by the request's status capability.
    static let statusPrefix = "/requests/"

    private func status(capability: String) -> HTTPResponse {
        switch pending.status(capability: capability) {
        case .answered(let response)?: response
        case .pending?: Answer.json(202, ["status": Self.statusPrefix + capability])
        case nil: Answer.error(404, "not_found", "No such request here; retry the request itself with its Idempotency-Key.")
        }
    }

    /// Runs `work` once per request — its id derived from `scope`, the `Idempotency-Key` (a new one when none is
    /// sent), the method, path and `fields` (`RequestIdentity`) — waiting at most the configured time. `shown`: a late
    /// answer is found at the status URL (`202`); else `503` with `Retry-After`, and the retry with the same key gets it.
    /// `work` returns nil when no outcome came in the listening window: nothing is recorded, a retry starts anew.
    func idempotent(_ request: HTTPRequest, scope: RequestIdentity.Scope, fields: [(name: String, value: String)], shown: Bool,
                    _ work: @escaping @Sendable (String) async -> HTTPResponse?) async -> HTTPResponse {
        let key = request.headers["Idempotency-Key"] ?? UUID().uuidString.lowercased()
        if let failure = RequestId.validate(key) { return Answer.error(400, "invalid_request", "Idempotency-Key: " + failure.message) }
        let id = identity.id(scope: scope, key: key, method: request.method, path: request.path, fields: fields)
        let capability = identity.capability(of: id)
        switch await pending.answer(id: id, capability: capability, shown: shown, within: configuration.wait, { await work(id) }) {
        case .answered(let response):
            return response
        case .pending where shown:
            let location = Self.statusPrefix + capability
            return Answer.json(202, ["requestId": id, "status": location], headers: [("Location", location), ("Retry-After", "1")])
        case .pending:
            return Answer.error(503, "temporarily_unavailable", "No answer yet; retry with the same Idempotency-Key.",
                                headers: [("Retry-After", "1")])
        }
    }

    /// The outcome `attempt` gets on the current client, tried again on a moved broker and after failed publishes
    /// until the listening window ends: nil then.
    func outcome<T>(within window: Duration? = nil, _ attempt: (RegistrarClient, Duration) async throws -> T) async throws -> T? {
        do {
            return try await clients.attempt(until: .now + (window ?? configuration.listening), attempt)
        } catch is RegistrarClient.TimedOut {
            return nil
        }
    }

    /// The answer `body` makes of an outcome; an outcome no answer fits (not the request's, or unreadable) is `502`.
    func answering(_ body: () async throws -> HTTPResponse?) async -> HTTPResponse? {
        do {
            return try await body()
        } catch {
            logger.error("unexpected outcome", ["error": String(describing: error)])
            return Answer.error(502, "unexpected_outcome", "The request got an outcome the gateway cannot use.")
        }
    }

    /// The email as the workers compare it, for the per-email limits.
    static func limitKey(_ email: String) -> String { RegistrationRules.normalizedEmail(email) }
}
