import Crypto
import Domain
import HTTPServer
import RegistrarClient

/// `DELETE /me` with a Bearer token of a recent sign-in (App Store Review Guideline 5.1.1(v), GDPR Art. 17): the account,
/// its profile and its avatar are deleted for good, every session ends at once, and a notice is mailed in the language
/// `Accept-Language` prefers. `200` `{"requestId","deleted":true}` once everything is gone (a late answer: `202` and the
/// status URL, retried with the same `Idempotency-Key`); `403` `reauthentication_required` for an older session (sign in
/// again, then delete), `401` for a token that does not count.
extension Gateway {
    @Sendable func deleteAccount(_ request: HTTPRequest) async -> HTTPResponse {
        let token: String
        switch Self.bearer(of: request) {
        case .success(let bearer): token = bearer
        case .failure(let challenge): return challenge.response
        }
        let locale = Self.locale(of: request)
        // The token is the caller's scope: one caller's Idempotency-Key never names another's request.
        return await idempotent(request, scope: .client("bearer:" + sha256Hex(Array(token.utf8))), fields: [("locale", locale ?? "")],
                                shown: true) { [self] id in
            await answering {
                guard let outcome = try await outcome({ client, left in
                    try await client.deleteAccount(accessToken: token, locale: locale, requestId: id, timeout: left)
                }) else { return nil }
                switch outcome {
                case .accountDeleted:
                    return Answer.json(200, ["requestId": id, "deleted": true])
                case .accountChangeFailed(let refused):
                    return Self.refusal(refused)
                case let other:
                    throw RegistrarClient.UnexpectedOutcome(type: other.type)
                }
            }
        }
    }
}
