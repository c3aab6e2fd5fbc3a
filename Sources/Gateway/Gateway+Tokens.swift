import Domain
import Foundation
import HTTPServer
import RegistrarClient

/// `POST /oauth/token` (RFC 6749 §3.2): the client authenticated per §2.3.1, grants `email` (`email` +
/// `code`), `password` (`username` or `email` + `password`, and `code` for an account whose mailbox was never proven,
/// answered `403 email_unverified` without it) and `refresh_token`; answers per §5.1 and §5.2.
extension Gateway {
    @Sendable func issueTokens(_ request: HTTPRequest) async -> HTTPResponse {
        let clientID: String
        let grant: GrantType
        let email: String?
        let credential: String
        var code: String?
        do {
            let body = try RequestBody.parse(request, accepting: [RequestBody.form])
            switch try authenticatedClient(request, body) {
            case .refused(let refusal): return refusal
            case .client(let id): clientID = id
            }
            guard let type = try body.value("grant_type") else { return Self.oauthError(400, "invalid_request", "grant_type is required.") }
            switch type {
            case "email":
                (grant, email, credential) = (.email, try Self.required("email", body), try Self.required("code", body))
            case "password":
                let name = try body.value("username") ?? body.value("email")
                guard let name else { return Self.oauthError(400, "invalid_request", "username is required.") }
                (grant, email, credential) = (.password, name, try Self.required("password", body))
                code = try body.value("code").flatMap { $0.isEmpty ? nil : $0 }
            case "refresh_token":
                (grant, email, credential) = (.refreshToken, nil, try Self.required("refresh_token", body))
            default:
                return Self.oauthError(400, "unsupported_grant_type", "The grant types are email, password and refresh_token.")
            }
        } catch let missing as MissingParameter {
            return Self.oauthError(400, "invalid_request", "\(missing.name) is required.")
        } catch let refusal as RequestBody.Refusal {
            if case .malformed(let why) = refusal { return Self.oauthError(400, "invalid_request", why) }
            return Answer.refused(refusal)
        } catch {
            return Self.oauthError(400, "invalid_request", "The request is malformed.")
        }
        if let email, let wait = signInLimiter.admit(Self.limitKey(email)) { return Answer.tooManyRequests(retryAfter: wait) }
        let fields = [("grant_type", grant.rawValue), ("email", email ?? ""), ("credential", credential), ("code", code ?? "")]
        let locale = Self.locale(of: request)
        return await idempotent(request, scope: .client(clientID), fields: fields, shown: false) { [self, code] id in
            await answering {
                guard let (outcome, pair) = try await outcome({ client, left in
                    try await client.requestTokens(grant, email: email, credential: credential, code: code, clientId: clientID, requestId: id,
                                                   timeout: left)
                }) else { return nil }
                switch (outcome, pair) {
                case (.tokenIssued(let issued), let pair?):
                    return Self.oauthAnswer(200, ["access_token": pair.accessToken, "token_type": issued.tokenType,
                                                  "expires_in": issued.expiresIn, "refresh_token": pair.refreshToken])
                case (.tokenRefused(let refused), _) where refused.reason == .invalidCredentials:
                    return Self.oauthError(400, "invalid_grant", "The credential is wrong, expired or used.")
                case (.tokenRefused(let refused), _) where [.profileIncomplete, .accountDisabled].contains(refused.reason):
                    return Self.oauthError(403, refused.reason.rawValue, refused.message)
                case (.tokenRefused(let refused), _) where refused.reason == .emailUnverified:
                    // The right password of an account whose mailbox was never proven: a login code is mailed there (an
                    // outstanding one again), to be sent back with the password, once.
                    let mailed = Event.codeRequested(CodeRequested(requestId: "\(id).code", email: email ?? "", purpose: .login, locale: locale))
                    _ = try? await self.outcome({ client, left in try await client.send(mailed, timeout: left) })
                    return Self.oauthError(403, refused.reason.rawValue,
                                           "This account's email address was never confirmed: a code was sent there; repeat the request with it as code.")
                case (.tokenRefused(let refused), _):
                    return Self.oauthError(400, "invalid_request", refused.message)
                case (let other, _):
                    throw RegistrarClient.UnexpectedOutcome(type: other.type)
                }
            }
        }
    }

    enum ClientAuthentication {
        case client(String)
        case refused(HTTPResponse)
    }

    /// The configured client the request authenticates, by HTTP Basic or by `client_id` and `client_secret` in the
    /// body (one method only); else the error answer.
    func authenticatedClient(_ request: HTTPRequest, _ body: RequestBody) throws(RequestBody.Refusal) -> ClientAuthentication {
        let (bodyID, bodySecret) = (try body.value("client_id"), try body.value("client_secret"))
        let id: String
        let secret: String
        if let authorization = request.headers["Authorization"] {
            guard bodySecret == nil else { return .refused(Self.oauthError(400, "invalid_request", "Use one client authentication method.")) }
            guard let basic = Self.basicCredentials(authorization), bodyID == nil || bodyID == basic.id else { return .refused(invalidClient) }
            (id, secret) = basic
        } else if let bodyID {
            (id, secret) = (bodyID, bodySecret ?? "")
        } else {
            return .refused(invalidClient)
        }
        return configuration.clients.authenticates(id: id, secret: secret) ? .client(id) : .refused(invalidClient)
    }

    private var invalidClient: HTTPResponse {
        Self.oauthError(401, "invalid_client", "Client authentication failed.", headers: [("WWW-Authenticate", #"Basic realm="registrar""#)])
    }

    /// `Basic base64(id:secret)` with both parts form-encoded (§2.3.1).
    static func basicCredentials(_ header: String) -> (id: String, secret: String)? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let data = Data(base64Encoded: String(parts[1])),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":"),
              let id = RequestBody.decode(text[..<colon]), let secret = RequestBody.decode(text[text.index(after: colon)...]) else { return nil }
        return (id, secret)
    }

    private struct MissingParameter: Error { var name: String }

    private static func required(_ name: String, _ body: RequestBody) throws -> String {
        guard let value = try body.value(name), !value.isEmpty else { throw MissingParameter(name: name) }
        return value
    }

    /// A token answer: never cached (§5.1).
    static func oauthAnswer(_ status: Int, _ object: [String: any Sendable], headers: [(String, String)] = []) -> HTTPResponse {
        Answer.json(status, object, headers: [("Cache-Control", "no-store"), ("Pragma", "no-cache")] + headers)
    }

    static func oauthError(_ status: Int, _ code: String, _ description: String, headers: [(String, String)] = []) -> HTTPResponse {
        oauthAnswer(status, ["error": code, "error_description": description], headers: headers)
    }
}
