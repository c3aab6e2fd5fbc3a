import Domain
import HTTPServer
import RegistrarClient

/// `POST /email/getCode`: form or JSON with `emailAddress` and `type` (1 register, 2 login, 3 reset
/// password, or a purpose name). The answer is the same whether or not an account has the address. The mail is
/// written in the language `Accept-Language` prefers.
extension Gateway {
    @Sendable func requestCode(_ request: HTTPRequest) async -> HTTPResponse {
        let email: String
        let purpose: CodePurpose
        do throws(RequestBody.Refusal) {
            let body = try RequestBody.parse(request, accepting: [RequestBody.form, RequestBody.json])
            let (named, plain) = (try body.value("emailAddress"), try body.value("email"))
            guard let address = named ?? plain, !address.isEmpty else {
                return Answer.error(400, "invalid_request", "emailAddress is required.")
            }
            guard let chosen = Self.purpose(try body.value("type")) else {
                return Answer.error(400, "invalid_request", "type must be 1 (register), 2 (login), 3 (reset password) or a purpose name (change_email, delete_account).")
            }
            (email, purpose) = (address, chosen)
        } catch {
            return Answer.refused(error)
        }
        if let wait = codeLimiter.admit(Self.limitKey(email)) { return Answer.tooManyRequests(retryAfter: wait) }
        return await idempotent(request, scope: .anyone, fields: [("email", email), ("purpose", purpose.rawValue)], shown: true) { [self] id in
            await answering {
                let requested = Event.codeRequested(CodeRequested(requestId: id, email: email, purpose: purpose, locale: Self.locale(of: request)))
                guard let outcome = try await outcome({ client, left in try await client.send(requested, timeout: left) }) else { return nil }
                switch outcome {
                case .codeSent(let sent):
                    return Answer.json(200, ["requestId": id, "purpose": sent.purpose.rawValue, "expiresIn": sent.expiresIn])
                case .codeRefused(let refused) where refused.reason == .codeRateLimited:
                    let wait = refused.retryAfter ?? 60
                    return Answer.error(429, refused.reason.rawValue, refused.message, headers: [("Retry-After", String(wait))])
                case .codeRefused(let refused):
                    return Answer.error(400, refused.reason.rawValue, refused.message)
                case let other:
                    throw RegistrarClient.UnexpectedOutcome(type: other.type)
                }
            }
        }
    }

    /// The `locale` of the request's mails: its `Accept-Language` as a priority list (nil when it names nothing usable).
    static func locale(of request: HTTPRequest) -> String? {
        request.headers["Accept-Language"].flatMap(MailLocale.priorityList(acceptLanguage:))
    }

    /// The purpose a `type` field names: the app's numbers or the purpose names.
    static func purpose(_ type: String?) -> CodePurpose? {
        switch type {
        case "1": .register
        case "2": .login
        case "3": .resetPassword
        case let name?: CodePurpose(rawValue: name)
        case nil: nil
        }
    }
}
