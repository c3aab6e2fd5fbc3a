import HTTPServer

/// `GET /.well-known/oauth-authorization-server` (RFC 8414): the endpoints, grants and client authentication methods
/// this gateway serves, so that OAuth client libraries find them. The issuer is `--issuer`, else the URL the gateway
/// serves on; every endpoint is under it.
extension Gateway {
    /// The grant types `POST /oauth/token` takes: the app's `email` (a code sent to the address), `password`, `refresh_token`.
    static let grantTypes = ["email", "password", "refresh_token"]
    /// How a client authenticates at the token endpoint (RFC 6749 §2.3.1): HTTP Basic or the body's parameters.
    static let clientAuthenticationMethods = ["client_secret_basic", "client_secret_post"]
    static let tokenPath = "/oauth/token"
    static let jwksPath = "/.well-known/jwks.json"
    static let metadataPath = "/.well-known/oauth-authorization-server"

    @Sendable func describeServer(_ request: HTTPRequest) async -> HTTPResponse {
        Answer.json(200, Self.metadata(issuer: issuer), headers: [("Cache-Control", "public, max-age=300")])
    }

    /// The metadata document of a gateway whose issuer is `issuer`. No authorization endpoint: the gateway serves no
    /// grant that needs one, so `response_types_supported` (a member RFC 8414 requires) is empty.
    static func metadata(issuer: String) -> [String: any Sendable] {
        [
            "issuer": issuer,
            "token_endpoint": issuer + tokenPath,
            "jwks_uri": issuer + jwksPath,
            "grant_types_supported": grantTypes,
            "token_endpoint_auth_methods_supported": clientAuthenticationMethods,
            "revocation_endpoint": issuer + revocationPath,
            "revocation_endpoint_auth_methods_supported": clientAuthenticationMethods,
            "response_types_supported": [String](),
        ]
    }
}
