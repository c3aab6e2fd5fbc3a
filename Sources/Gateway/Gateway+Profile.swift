import Domain
import Foundation
import HTTPServer
import RegistrarClient

/// `GET /me` with a Bearer token (RFC 6750 §2.1): the caller's profile, which the account worker reads after
/// verifying the token; `403` `profile_incomplete` (the login guard); `401` for a missing or bad token (§3).
/// A read, not idempotent: one not answered within the wait gets `503` with `Retry-After`.
extension Gateway {
    @Sendable func showProfile(_ request: HTTPRequest) async -> HTTPResponse {
        guard let authorization = request.headers["Authorization"] else {
            return Self.bearerChallenge(error: nil, "A Bearer access token is required.")
        }
        guard let token = Self.bearerToken(authorization) else { return Self.bearerChallenge(error: "invalid_token", "The access token is malformed.") }
        let answer = await answering {
            guard let (outcome, view) = try await outcome(within: configuration.wait, { client, left in
                try await client.profile(accessToken: token, timeout: left)
            }) else { return nil }
            switch (outcome, view) {
            case (.profileAnswered, let view?):
                return Answer.json(200, ["uid": view.uid, "name": view.name, "email": view.email, "profileImage": view.profileImage,
                                         "isMapLocationEnabled": view.isMapLocationEnabled])
            case (.tokenRefused(let refused), _) where refused.reason == .invalidCredentials:
                return Self.bearerChallenge(error: "invalid_token", "The access token is expired, revoked or not ours.")
            case (.tokenRefused(let refused), _) where refused.reason == .profileIncomplete:
                return Answer.error(403, refused.reason.rawValue, refused.message)
            case (let other, _):
                throw RegistrarClient.UnexpectedOutcome(type: other.type)
            }
        }
        return answer ?? Answer.error(503, "temporarily_unavailable", "No answer yet; retry.", headers: [("Retry-After", "1")])
    }

    /// The token of `Bearer <b64token>`, the scheme case-insensitive (RFC 6750 §2.1); nil when it is not one.
    static func bearerToken(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1]
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~+/="))
        guard !token.isEmpty, token.count <= 4096, token.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }),
              token.first != "=" else { return nil }
        return String(token)
    }

    /// `401` with the `WWW-Authenticate: Bearer` challenge, with `error` unless the request carried no credentials (§3.1).
    static func bearerChallenge(error: String?, _ description: String) -> HTTPResponse {
        let challenge = #"Bearer realm="registrar""# + (error.map { #", error="\#($0)""# } ?? "")
        return Answer.error(401, error ?? "invalid_request", description, headers: [("WWW-Authenticate", challenge)])
    }
}
