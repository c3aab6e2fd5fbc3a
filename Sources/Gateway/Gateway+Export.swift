import Domain
import Foundation
import HTTPServer
import RegistrarClient

/// `GET /me/export` with a Bearer token of a recent sign-in (GDPR Art. 15 and 20): a JSON document of everything
/// Registrar stores about the account — `account` (no password hash), `profile`, `sessions`, `history` — times in ISO
/// 8601, as an attachment; `403` `reauthentication_required` for an older session (sign in again, then export), `401`
/// for a token that does not count. A read: one not answered within the wait gets `503` with `Retry-After`.
extension Gateway {
    @Sendable func exportAccount(_ request: HTTPRequest) async -> HTTPResponse {
        let token: String
        switch Self.bearer(of: request) {
        case .success(let bearer): token = bearer
        case .failure(let challenge): return challenge.response
        }
        let answer = await answering {
            guard let (outcome, export) = try await outcome(within: configuration.wait, { client, left in
                try await client.export(accessToken: token, timeout: left)
            }) else { return nil }
            switch (outcome, export) {
            case (.exportAnswered, let export?):
                return HTTPResponse(status: 200, headers: HTTPHeaders([
                    ("Content-Type", "application/json"), ("Cache-Control", "no-store"),
                    ("Content-Disposition", #"attachment; filename="registrar-export.json""#),
                ]), body: export.document)
            case (.tokenRefused(let refused), _):
                return Self.refusal(refused)
            case (let other, _):
                throw RegistrarClient.UnexpectedOutcome(type: other.type)
            }
        }
        return answer ?? Answer.error(503, "temporarily_unavailable", "No answer yet; retry.", headers: [("Retry-After", "1")])
    }
}
