import Courier
import Domain
import Foundation

/// The code dispatch worker's step: sends a one-time code by email, within the resend limits.
///
/// It never consults accounts, so a request for an unknown email is answered exactly like one for a
/// known email (same outcome, same work). A redelivered request is answered again without a new code.
public struct CodeDispatchStep: EventHandler {
    public var codes: any CodeStore
    public var secrets: any CodeSecrets
    public var mailer: any Mailer
    public var mail: MailSettings
    public var rules: CodeRules
    public var clock: @Sendable () -> Date

    public init(codes: any CodeStore, secrets: any CodeSecrets, mailer: any Mailer, mail: MailSettings = .init(),
                rules: CodeRules = .init(), clock: @escaping @Sendable () -> Date = Date.init) {
        self.codes = codes
        self.secrets = secrets
        self.mailer = mailer
        self.mail = mail
        self.rules = rules
        self.clock = clock
    }

    public func handle(_ event: Event) throws -> [Event] {
        guard case .codeRequested(let request) = event else { throw UnexpectedEvent(type: event.type, worker: "code-dispatch-worker") }
        let email = RegistrationRules.normalizedEmail(request.email)
        if let failure = RequestId.validate(request.requestId) ?? RegistrationRules().validate(email: email) {
            return [.codeRefused(CodeRefused(requestId: request.requestId, reason: failure.reason, message: failure.message))]
        }
        let sent = Event.codeSent(CodeSent(requestId: request.requestId, purpose: request.purpose,
                                           expiresIn: Int(rules.policy.lifetime)))
        let now = clock()
        return [try codes.update(email: email, purpose: request.purpose) { (record) throws(StoreError) -> Event in
            switch rules.admit(record, requestId: request.requestId, at: now) {
            case .alreadyIssued:
                return sent
            case .refuse(let retryAfter):
                return .codeRefused(CodeRefused(requestId: request.requestId, reason: .codeRateLimited,
                                                message: "Too many codes requested; try again in \(retryAfter) s.", retryAfter: retryAfter))
            case .issue:
                let code = secrets.newCode()
                // Sent inside the transaction: if sending fails, the code is not recorded and the request is retried.
                try mailer.send(CodeLetter.message(code: code, purpose: request.purpose, to: email, requestId: request.requestId,
                                                   minutes: Int(rules.policy.lifetime / 60), settings: mail, date: now))
                record = rules.issued(record, email: email, purpose: request.purpose,
                                      digest: secrets.digest(of: code, purpose: request.purpose, email: email),
                                      requestId: request.requestId, at: now)
                return sent
            }
        }]
    }
}
