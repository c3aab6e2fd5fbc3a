import Domain
import HTTPServer

/// The account changes, each a form or JSON body whose secrets are sealed before they leave the gateway:
/// `POST /me/password` (`email`, `oldPassword`, `newPassword`), `POST /password/reset` (`email`, `code`,
/// `newPassword`), `POST /me/email` (`email`, `password`, `newEmail`, `code` sent to the new address). The notices
/// are written in the language `Accept-Language` prefers.
extension Gateway {
    @Sendable func changePassword(_ request: HTTPRequest) async -> HTTPResponse {
        await changeAccount(request, ["email", "oldPassword", "newPassword"]) { [client] id, locale, field in
            .passwordChangeRequested(client.passwordChange(email: field("email"), password: field("oldPassword"),
                                                           newPassword: field("newPassword"), locale: locale, requestId: id))
        }
    }

    @Sendable func resetPassword(_ request: HTTPRequest) async -> HTTPResponse {
        await changeAccount(request, ["email", "code", "newPassword"]) { [client] id, locale, field in
            .passwordResetRequested(client.passwordReset(email: field("email"), code: field("code"),
                                                         newPassword: field("newPassword"), locale: locale, requestId: id))
        }
    }

    @Sendable func changeEmail(_ request: HTTPRequest) async -> HTTPResponse {
        await changeAccount(request, ["email", "password", "newEmail", "code"]) { [client] id, locale, field in
            .emailChangeRequested(client.emailChange(email: field("email"), password: field("password"),
                                                     newEmail: field("newEmail"), code: field("code"), locale: locale, requestId: id))
        }
    }

    /// Reads the `required` fields, publishes the change `make` builds from them and answers its outcome:
    /// `200` done, `403` for a wrong credential, `400` for any other refusal.
    private func changeAccount(_ request: HTTPRequest, _ required: [String],
                               _ make: @escaping @Sendable (String, String?, (String) -> String) -> Event) async -> HTTPResponse {
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
        if let wait = signInLimiter.admit(fields["email", default: ""].lowercased()) { return Answer.tooManyRequests(retryAfter: wait) }
        return await idempotent(request, shown: true) { [client, configuration] id in
            do {
                switch try await client.send(make(id, locale) { fields[$0, default: ""] }, timeout: configuration.outcomeTimeout) {
                case .accountChangeCompleted(let completed):
                    return Answer.json(200, ["requestId": id, "change": completed.change.rawValue])
                case .accountChangeFailed(let failed) where failed.reason == .invalidCredentials:
                    return Answer.error(403, failed.reason.rawValue, failed.message)
                case .accountChangeFailed(let failed):
                    return Answer.error(400, failed.reason.rawValue, failed.message)
                case let other:
                    return Answer.error(502, "unexpected_outcome", other.type)
                }
            } catch {
                return self.unavailable(error)
            }
        }
    }
}
