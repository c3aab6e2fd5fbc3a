import Crypto
import Domain
import Foundation
import HTTPServer
import RegistrarClient

/// Sign-out and sessions. `POST /oauth/revoke` (RFC 7009): the client authenticated as at the token endpoint, `token`
/// a refresh or an access token (`token_type_hint` may say which; either is found), whose session ends; `200` whether the
/// token was known or not (§2.2). With a Bearer access token (RFC 6750): `POST /me/sign-out` ends its own session,
/// `POST /me/sign-out-everywhere` every session of the account (every refresh token and every access token, and a notice
/// is mailed in the language `Accept-Language` prefers), `GET /me/sessions` lists the live sessions and
/// `DELETE /me/sessions/{id}` ends one of them (`404` `session_unknown` for an id the account does not have).
extension Gateway {
    static let revocationPath = "/oauth/revoke"
    static let sessionsPath = "/me/sessions"
    /// The values of `token_type_hint` (RFC 7009 §2.1): both are revoked, so the hint is only checked.
    static let tokenTypeHints: Set<String> = ["refresh_token", "access_token"]

    @Sendable func revokeToken(_ request: HTTPRequest) async -> HTTPResponse {
        let token: String
        let clientID: String
        do {
            let body = try RequestBody.parse(request, accepting: [RequestBody.form])
            switch try authenticatedClient(request, body) {
            case .refused(let refusal): return refusal
            case .client(let id): clientID = id
            }
            guard let value = try body.value("token"), !value.isEmpty else { return Self.oauthError(400, "invalid_request", "token is required.") }
            if let hint = try body.value("token_type_hint"), !Self.tokenTypeHints.contains(hint) {
                return Self.oauthError(400, "unsupported_token_type", "token_type_hint is refresh_token or access_token.")
            }
            token = value
        } catch {
            if case .malformed(let why) = error { return Self.oauthError(400, "invalid_request", why) }
            return Answer.refused(error)
        }
        return await idempotent(request, scope: .client(clientID), fields: [("token", token)], shown: false) { [self] id in
            await answering {
                guard let outcome = try await outcome({ client, left in
                    try await client.signOut(.revocation, token: token, requestId: id, timeout: left)
                }) else { return nil }
                switch outcome {
                case .signedOut: return Self.oauthAnswer(200, [:])
                case .tokenRefused(let refused): return Self.oauthError(400, "invalid_request", refused.message)
                case let other: throw RegistrarClient.UnexpectedOutcome(type: other.type)
                }
            }
        }
    }

    @Sendable func signOutSession(_ request: HTTPRequest) async -> HTTPResponse {
        await signOut(request, .session)
    }

    @Sendable func signOutEverywhere(_ request: HTTPRequest) async -> HTTPResponse {
        await signOut(request, .everywhere)
    }

    /// `DELETE /me/sessions/{id}`.
    func endSession(_ request: HTTPRequest) async -> HTTPResponse {
        let id = String(request.path.dropFirst(Self.sessionsPath.count + 1))
        guard request.method == "DELETE" else {
            return Answer.error(405, "method_not_allowed", "Use DELETE.", headers: [("Allow", "DELETE")])
        }
        guard RequestId.validate(id) == nil else { return Answer.error(404, ReasonCode.sessionUnknown.rawValue, "No such session.") }
        return await signOut(request, .session, sessionId: id)
    }

    /// Ends the sessions `scope` names for the request's Bearer token: `200` with what ended, `401` for a token that does
    /// not count, `404` for a session the account does not have.
    private func signOut(_ request: HTTPRequest, _ scope: SignOutScope, sessionId: String? = nil) async -> HTTPResponse {
        let token: String
        switch Self.bearer(of: request) {
        case .success(let bearer): token = bearer
        case .failure(let challenge): return challenge.response
        }
        let locale = Self.locale(of: request)
        // The token is the caller's scope: one caller's Idempotency-Key never names another's request.
        let fields = [("scope", scope.rawValue), ("sessionId", sessionId ?? ""), ("locale", locale ?? "")]
        return await idempotent(request, scope: .client("bearer:" + sha256Hex(Array(token.utf8))), fields: fields, shown: false) { [self] id in
            await answering {
                guard let outcome = try await outcome({ client, left in
                    try await client.signOut(scope, token: token, sessionId: sessionId, locale: locale, requestId: id, timeout: left)
                }) else { return nil }
                switch outcome {
                case .signedOut:
                    return Answer.json(200, ["signedOut": sessionId.map { "session " + $0 } ?? scope.rawValue])
                case .tokenRefused(let refused):
                    return Self.refusal(refused)
                case let other:
                    throw RegistrarClient.UnexpectedOutcome(type: other.type)
                }
            }
        }
    }

    @Sendable func listSessions(_ request: HTTPRequest) async -> HTTPResponse {
        let token: String
        switch Self.bearer(of: request) {
        case .success(let bearer): token = bearer
        case .failure(let challenge): return challenge.response
        }
        let answer = await answering {
            guard let (outcome, list) = try await outcome(within: configuration.wait, { client, left in
                try await client.sessions(accessToken: token, timeout: left)
            }) else { return nil }
            switch (outcome, list) {
            case (.sessionsAnswered, let list?):
                let time = ISO8601DateFormatter()
                return Answer.json(200, ["sessions": list.sessions.map { session -> [String: any Sendable] in
                    ["id": session.id, "createdAt": time.string(from: session.createdAt), "lastUsedAt": time.string(from: session.lastUsedAt),
                     "clientId": session.clientId ?? NSNull(), "current": session.current]
                }], headers: [("Cache-Control", "no-store")])
            case (.tokenRefused(let refused), _):
                return Self.refusal(refused)
            case (let other, _):
                throw RegistrarClient.UnexpectedOutcome(type: other.type)
            }
        }
        return answer ?? Answer.error(503, "temporarily_unavailable", "No answer yet; retry.", headers: [("Retry-After", "1")])
    }

    /// A refused request with a Bearer token: `401` and the challenge for a token that does not count, `404` for an
    /// unknown session, `403` for an older session than a re-authentication needs, else `400`.
    static func refusal(_ refused: RequestRefusal) -> HTTPResponse {
        switch refused.reason {
        case .invalidCredentials: bearerChallenge(error: "invalid_token", "The access token is expired, revoked or not ours.")
        case .sessionUnknown: Answer.error(404, refused.reason.rawValue, refused.message)
        case .reauthenticationRequired: Answer.error(403, refused.reason.rawValue, refused.message)
        case .profileIncomplete: Answer.error(403, refused.reason.rawValue, refused.message)
        case .profileUpdateInProgress: Answer.error(409, refused.reason.rawValue, refused.message)
        default: Answer.error(400, refused.reason.rawValue, refused.message)
        }
    }

    /// An answer that is an error, to carry through a `Result`.
    struct Challenge: Error { var response: HTTPResponse }

    /// The request's Bearer token, or the `401` challenge (RFC 6750 §3).
    static func bearer(of request: HTTPRequest) -> Result<String, Challenge> {
        guard let authorization = request.headers["Authorization"] else {
            return .failure(Challenge(response: bearerChallenge(error: nil, "A Bearer access token is required.")))
        }
        guard let token = bearerToken(authorization) else {
            return .failure(Challenge(response: bearerChallenge(error: "invalid_token", "The access token is malformed.")))
        }
        return .success(token)
    }
}
