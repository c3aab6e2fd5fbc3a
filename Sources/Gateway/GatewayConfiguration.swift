/// What a gateway answers with and how long it waits.
public struct GatewayConfiguration: Sendable {
    public var clients: OAuthClients
    /// The JSON Web Key Set that verifies access tokens, served as it is.
    public var jwks: String
    /// How long a request is held for its outcome before the answer is `202` (or `503` for tokens).
    public var wait: Duration = .seconds(10)
    /// How long the outcome is awaited in all; a retry with the same `Idempotency-Key` meanwhile joins it.
    public var outcomeTimeout: Duration = .seconds(60)
    /// Requests a client address may make per minute.
    public var requestsPerMinutePerAddress = 120
    /// Code requests per email address per hour, over all purposes (the code worker's own limits apply too).
    public var codesPerHourPerEmail = 20
    /// Token requests naming an email address per minute.
    public var signInsPerMinutePerEmail = 10
    /// The OAuth issuer identifier (RFC 8414: the HTTPS URL the apps reach the gateway at, no query or fragment); nil:
    /// the URL it serves on.
    public var issuer: String?
    /// Whether the gateway is served over TLS (it then sends `Strict-Transport-Security`).
    public var tls: Bool

    public init(clients: OAuthClients, jwks: String, tls: Bool) {
        self.clients = clients
        self.jwks = jwks
        self.tls = tls
    }
}
