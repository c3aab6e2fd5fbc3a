/// Who issues access tokens (`iss`) and who they are for (`aud`): the account worker's
/// `--token-issuer` and `--token-audience`, which every verifier must be given too.
public struct TokenAudience: Sendable, Equatable {
    public static let defaultIssuer = "registrar"
    public static let defaultAudience = "registrar-api"

    public var issuer: String
    public var audience: String

    public init(issuer: String = defaultIssuer, audience: String = defaultAudience) {
        self.issuer = issuer
        self.audience = audience
    }
}
