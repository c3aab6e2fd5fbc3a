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

    public static let routes = Route.set([Topic.codeRequests: [.codeRequested]])

    public func handle(_ event: Event) throws -> [Event] {
        guard case .codeRequested(let request) = event else { unrouted(event) }
        let email = RegistrationRules.normalizedEmail(request.email)
        if let failure = RequestId.validate(request.requestId) ?? RegistrationRules().validate(email: email) {
            return [.codeRefused(CodeRefused(requestId: request.requestId, reason: failure.reason, message: failure.message))]
        }
        let sent = Event.codeSent(CodeSent(requestId: request.requestId, purpose: request.purpose,
                                           expiresIn: Int(rules.policy.lifetime)))
        let now = clock()
        // Recorded first, mailed second: a store that refuses the write sends nothing, and a send that
        // fails (or a crash before the send is recorded) leaves the code pending: the retry mails the
        // very same code, as the very same message.
        let dispatch = try codes.update(email: email, purpose: request.purpose) { (record) throws(StoreError) -> Dispatch in
            switch rules.admit(record, requestId: request.requestId, at: now) {
            case .alreadyIssued:
                return .answer(sent)
            case .refuse(let retryAfter):
                return .answer(.codeRefused(CodeRefused(requestId: request.requestId, reason: .codeRateLimited,
                                                        message: "Too many codes requested; try again in \(retryAfter) s.",
                                                        retryAfter: retryAfter)))
            case .resend(let nonce):
                return .mail(nonce: nonce, issuedAt: record?.sentAt.last ?? now)
            case .issue:
                let nonce = secrets.newNonce()
                record = rules.issued(record, email: email, purpose: request.purpose,
                                      digest: secrets.digest(of: secrets.code(from: nonce), purpose: request.purpose, email: email),
                                      nonce: nonce, requestId: request.requestId, at: now)
                return .mail(nonce: nonce, issuedAt: now)
            }
        }
        switch dispatch {
        case .answer(let event):
            return [event]
        case .mail(let nonce, let issuedAt):
            try mailer.send(CodeLetter.message(code: secrets.code(from: nonce), purpose: request.purpose, to: email,
                                               requestId: request.requestId, minutes: Int(rules.policy.lifetime / 60),
                                               settings: mail, date: issuedAt))
            // The code is valid already; failing to record the send only means that a redelivery of this
            // request mails the same message again, so the answer does not wait for it.
            _ = try? codes.update(email: email, purpose: request.purpose) { (record) throws(StoreError) in
                record = rules.mailed(record, requestId: request.requestId)
            }
            return [sent]
        }
    }

    /// What a code request comes to once the store has admitted it.
    private enum Dispatch: Sendable {
        case answer(Event)
        case mail(nonce: String, issuedAt: Date)
    }
}
