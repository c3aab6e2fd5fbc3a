import Domain
import HTTPServer
import RegistrarClient

/// The account changes, each a form or JSON body whose secrets are sealed before they leave the gateway:
/// `POST /me/password` (`email`, `oldPassword`, `newPassword`), `POST /password/reset` (`email`, `code`,
/// `newPassword`), `POST /me/email` (`email`, `password`, `newEmail`, `code` sent to the new address). The notices
/// are written in the language `Accept-Language` prefers.
extension Gateway {
    @Sendable func changePassword(_ request: HTTPRequest) async -> HTTPResponse {
        await changeAccount(request, ["email", "oldPassword", "newPassword"]) { id, locale, field in
            let (email, old, new) = (field("email"), field("oldPassword"), field("newPassword"))
            return { client in
                .passwordChangeRequested(client.passwordChange(email: email, password: old, newPassword: new, locale: locale, requestId: id))
            }
        }
    }

    @Sendable func resetPassword(_ request: HTTPRequest) async -> HTTPResponse {
        await changeAccount(request, ["email", "code", "newPassword"]) { id, locale, field in
            let (email, code, new) = (field("email"), field("code"), field("newPassword"))
            return { client in
                .passwordResetRequested(client.passwordReset(email: email, code: code, newPassword: new, locale: locale, requestId: id))
            }
        }
    }

    @Sendable func changeEmail(_ request: HTTPRequest) async -> HTTPResponse {
        await changeAccount(request, ["email", "password", "newEmail", "code"]) { id, locale, field in
            let (email, password, newEmail, code) = (field("email"), field("password"), field("newEmail"), field("code"))
            return { client in
                .emailChangeRequested(client.emailChange(email: email, password: password, newEmail: newEmail, code: code, locale: locale,
                                                         requestId: id))
            }
        }
    }

    /// Reads the `required` fields, publishes the change `make` builds from them (sealed by the client that publishes
    /// it) and answers its outcome: `200` done, `403` for a wrong credential, `400` for any other refusal.
    private func changeAccount(_ request: HTTPRequest, _ required: [String],
                               _ make: @escaping @Sendable (String, String?, (String) -> String) -> @Sendable (RegistrarClient) -> Event)
        async -> HTTPResponse {
        var values: [String: String] = [:]
        do throws(RequestBody.Refusal) {
            let body = try RequestBody.parse(request, accepting: [RequestBody.form, RequestBody.json])
            for name in required {
                guard let value = try body.value(name), !value.isEmpty else { throw .malformed("\(required.joined(separator: ", ")) are required") }
                values[name] = value
            }
        } catch {
            return Answer.refused(error)
        }
        let (fields, locale) = (values, Self.locale(of: request))
        if let wait = signInLimiter.admit(Self.limitKey(fields["email", default: ""])) { return Answer.tooManyRequests(retryAfter: wait) }
        return await idempotent(request, scope: .anyone, fields: fields.map { ($0.key, $0.value) }, shown: true) { [self] id in
            await answering {
                let change = make(id, locale) { fields[$0, default: ""] }
                guard let outcome = try await outcome({ client, left in try await client.send(change(client), timeout: left) }) else { return nil }
                switch outcome {
                case .accountChangeCompleted(let completed):
                    return Answer.json(200, ["requestId": id, "change": completed.change.rawValue])
                case .accountChangeFailed(let failed) where failed.reason == .invalidCredentials:
                    return Answer.error(403, failed.reason.rawValue, failed.message)
                case .accountChangeFailed(let failed):
                    return Answer.error(400, failed.reason.rawValue, failed.message)
                case let other:
                    throw RegistrarClient.UnexpectedOutcome(type: other.type)
                }
            }
        }
    }
}
