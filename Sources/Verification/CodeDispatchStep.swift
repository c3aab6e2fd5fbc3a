import Accounts
import Courier
import Domain
import Foundation

/// The code dispatch worker's step: sends a one-time code by email, within the resend limits.
///
/// It never consults accounts, so a request for an unknown email is answered exactly like one for a
/// known email (same outcome, same work). A redelivered request is answered again without a new code; a request while
/// a code is outstanding has that very code mailed again (``CodeRules``).
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

    public static let routes = StepRoutes.codeDispatch

    /// The letters it mails: a code for each purpose.
    public static let letters = CodePurpose.allCases.map(CodeLetter.letter(for:))

    public func handle(_ event: Event) throws -> [Event] {
        guard case .codeRequested(let request) = event else { unrouted(event) }
        let email = RegistrationRules.normalizedEmail(request.email)
        if let failure = RequestId.validate(request.requestId) ?? RegistrationRules().validate(email: email)
            ?? request.locale.flatMap(MailLocale.problem(in:)).map({ Failure(.localeInvalid, $0) }) {
            return [.codeRefused(CodeRefused(requestId: request.requestId, reason: failure.reason, message: failure.message))]
        }
        let sent = Event.codeSent(CodeSent(requestId: request.requestId, purpose: request.purpose,
                                           expiresIn: Int(rules.policy.lifetime)))
        let now = clock()
        // Recorded only: the code is mailed by ``deliver(_:)`` once this record has committed (with the
        // answer, under `AnswerOnce`), so that a retry mails the very same code, as the very same message.
        return [try codes.update(email: email, purpose: request.purpose) { (record) throws(StoreError) -> Event in
            switch rules.admit(record, requestId: request.requestId, at: now) {
            case .alreadyIssued:
                return sent
            case .refuse(let retryAfter):
                return .codeRefused(CodeRefused(requestId: request.requestId, reason: .codeRateLimited,
                                                message: "Too many codes requested; try again in \(retryAfter) s.",
                                                retryAfter: retryAfter))
            case .resend:
                record = rules.resent(record!, requestId: request.requestId, at: now)
                return sent
            case .issue:
                let nonce = secrets.newNonce()
                record = rules.issued(record, email: email, purpose: request.purpose,
                                      digest: secrets.digest(of: secrets.code(from: nonce), purpose: request.purpose, email: email),
                                      recoveryDigest: secrets.digest(of: secrets.recoveryCode(from: nonce), purpose: request.purpose, email: email),
                                      nonce: nonce, requestId: request.requestId, at: now)
                return sent
            }
        }]
    }

    /// Mails the code `event`'s request had sent if its email is still owed (the record is the outbox: its nonce gives
    /// the very same code, its last send the message's date), then records it mailed. Run after the request's record
    /// has committed, for its first answer and every repeat, so a mail that failed (a transient error, retried) or was
    /// cut short by a crash is sent on the retry.
    public func deliver(_ event: Event) throws {
        guard case .codeRequested(let request) = event else { return }
        let email = RegistrationRules.normalizedEmail(request.email)
        let owed = try codes.update(email: email, purpose: request.purpose) { (record) throws(StoreError) -> CodeLetter? in
            guard let record, record.unmailed.contains(request.requestId), let nonce = record.nonce else { return nil }
            return CodeLetter(code: secrets.code(from: nonce), recoveryCode: secrets.recoveryCode(from: nonce),
                              digitsDisabled: record.attempts >= rules.policy.maximumAttempts, purpose: request.purpose,
                              expiresAt: record.expiresAt, date: record.lastSentAt ?? clock())
        }
        guard let owed else { return }
        try mailer.send(owed.message(to: email, requestId: request.requestId, locale: request.locale, settings: mail))
        // The code is valid already; failing to record the send only means that a redelivery of this
        // request mails the same message again, so the answer does not wait for it.
        _ = try? codes.update(email: email, purpose: request.purpose) { (record) throws(StoreError) in
            record = rules.mailed(record, requestId: request.requestId)
        }
    }
}
