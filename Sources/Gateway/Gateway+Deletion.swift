import Crypto
import Domain
import HTTPServer
import RegistrarClient

/// `DELETE /me` with a Bearer token of a recent sign-in and, as a form or JSON body, one credential proving it is the owner
/// now (App Store Review Guideline 5.1.1(v), GDPR Art. 17): `password`, or `code`, a `delete_account` code mailed by
/// `POST /email/getCode` (`type=delete_account`). The account, its profile and its avatar are deleted for good, every
/// session ends at once, and a notice is mailed in the language `Accept-Language` prefers. `200`
/// `{"requestId","deleted":true}` once everything is gone (a late answer: `202` and the status URL, retried with the same
/// `Idempotency-Key`); `400` without exactly one credential; `403` `reauthentication_required` for an older session
/// (sign in again, then delete), `401` for a token or credential that does not count.
extension Gateway {
    @Sendable func deleteAccount(_ request: HTTPRequest) async -> HTTPResponse {
        let token: String
        switch Self.bearer(of: request) {
        case .success(let bearer): token = bearer
        case .failure(let challenge): return challenge.response
        }
        let proof: DeletionProof
        switch Self.deletionProof(of: request) {
        case .success(let given): proof = given
        case .failure(let refusal): return refusal.response
        }
        let locale = Self.locale(of: request)
        let credential = switch proof {
        case .password(let password): ("password", password)
        case .code(let code): ("code", code)
        }
        // The token is the caller's scope: one caller's Idempotency-Key never names another's request.
        return await idempotent(request, scope: .client("bearer:" + sha256Hex(Array(token.utf8))), fields: [("locale", locale ?? ""), credential],
                                shown: true) { [self] id in
            await answering {
                guard let outcome = try await outcome({ client, left in
                    try await client.deleteAccount(accessToken: token, proof: proof, locale: locale, requestId: id, timeout: left)
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

    /// The one credential of a deletion's body: its `password` or its `code`.
    static func deletionProof(of request: HTTPRequest) -> Result<DeletionProof, Challenge> {
        let missing = Challenge(response: Answer.error(400, "invalid_request", "Re-authenticate the deletion with exactly one of password or code "
                                                                          + "(a delete_account code from POST /email/getCode), as a form or JSON body."))
        guard !request.body.isEmpty else { return .failure(missing) }
        do throws(RequestBody.Refusal) {
            let body = try RequestBody.parse(request, accepting: [RequestBody.form, RequestBody.json])
            let given = (try body.value("password").flatMap { $0.isEmpty ? nil : $0 }, try body.value("code").flatMap { $0.isEmpty ? nil : $0 })
            switch given {
            case (let password?, nil): return .success(.password(password))
            case (nil, let code?): return .success(.code(code))
            default: return .failure(missing)
            }
        } catch {
            return .failure(Challenge(response: Answer.refused(error)))
        }
    }
}
