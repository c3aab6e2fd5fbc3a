/// What a gateway answers with, how long it waits and whom it believes.
public struct GatewayConfiguration: Sendable {
    public var clients: OAuthClients
    /// The JSON Web Key Set that verifies access tokens, as it is to be served now (`ServedKeySet`).
    public var jwks: @Sendable () -> String
    /// How long a request is held for its outcome before the answer is `202` with a status URL (`503` for tokens).
    public var wait: Duration = .seconds(10)
    /// How long the gateway keeps trying to get an accepted request's outcome (listening for it, publishing it again
    /// on a moved broker or after a failed publish); past it a retry with the same `Idempotency-Key` publishes the
    /// request again, which the workers' answer memo answers at once if it was answered meanwhile.
    public var listening: Duration = .seconds(600)
    /// How long an answer is kept for retries and its status URL.
    public var retention: Duration = .seconds(600)
    /// Requests a client address may make per minute, on every endpoint.
    public var requestsPerMinutePerAddress = 120
    /// Code requests per email address per hour, over all purposes (the code worker's own limits apply too).
    public var codesPerHourPerEmail = 20
    /// Token and account requests naming an email address per minute.
    public var signInsPerMinutePerEmail = 10
    /// The proxies whose `Forwarded` / `X-Forwarded-For` headers name the client; any other peer is the client.
    public var trustedProxies: [AddressRange] = []
    /// The browser origins (`scheme://host[:port]`) allowed to call; a request with any other `Origin` is refused.
    public var allowedOrigins: Set<String> = []
    /// How long the broker may be unreachable before `/healthz` fails, so that a supervisor restarts the gateway.
    public var brokerLiveness: Duration = .seconds(120)
    /// The OAuth issuer identifier (RFC 8414: the HTTPS URL the apps reach the gateway at, no query or fragment); nil:
    /// the URL it serves on.
    public var issuer: String?
    /// Whether the gateway is served over TLS (it then sends `Strict-Transport-Security`).
    public var tls: Bool

    public init(clients: OAuthClients, jwks: @escaping @Sendable () -> String, tls: Bool) {
        self.clients = clients
        self.jwks = jwks
        self.tls = tls
    }
}
