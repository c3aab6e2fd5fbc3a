import Domain
import Foundation
import RegistrarClient
import SignIn
import Synchronization
import Testing

/// What the sign-in tests do with an installation: request codes and read them back from the emails
/// sent, sign in and open the sealed tokens, register accounts.
extension FlowSystem {
    /// Requests a code and returns the answer.
    func requestCode(_ email: String, _ purpose: CodePurpose, id: String = UUID().uuidString) async throws -> Event {
        try await send(.codeRequested(CodeRequested(requestId: id, email: email, purpose: purpose)))
    }

    /// Requests a code and reads it from its email. A request within the cooldown of an outstanding code, which is
    /// mailed again rather than replaced, is refused: then the code this harness read last for that mailbox and purpose.
    func code(for email: String, _ purpose: CodePurpose) async throws -> String {
        let id = UUID().uuidString
        let mailbox = "\(directory)|\(RegistrationRules.normalizedEmail(email))|\(purpose.rawValue)"
        switch try await requestCode(email, purpose, id: id) {
        case .codeSent:
            let code = try code(sentBy: id)
            codesRead.withLock { $0[mailbox] = code }
            return code
        case .codeRefused(let refused) where refused.reason == .codeRateLimited:
            guard let code = codesRead.withLock({ $0[mailbox] }) else { throw HarnessError("no \(purpose) code for \(email): \(refused.message)") }
            return code
        case let other:
            throw HarnessError("no code sent to \(email): \(other)")
        }
    }

    /// The recovery form of the code in the email sent for request `id`.
    func recoveryCode(sentBy id: String) throws -> String {
        let email = try email(kind: "code", requestId: id)
        guard let range = email.range(of: #"[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}"#, options: .regularExpression) else {
            throw HarnessError("no recovery code in email \(id)")
        }
        return String(email[range])
    }

    /// The code in the email sent for request `id`.
    func code(sentBy id: String) throws -> String {
        guard let code = Self.code(in: try email(kind: "code", requestId: id)) else { throw HarnessError("no code in email \(id)") }
        return code
    }

    /// The code in the text of a code email, however it was delivered.
    static func code(in email: String) -> String? {
        email.range(of: #"is: [0-9]{6}"#, options: .regularExpression).map { String(email[$0].suffix(6)) }
    }

    /// The raw text of one email, by its kind (`code`, `notice`) and request id, however it was delivered.
    func email(kind: String, requestId: String) throws -> String {
        guard let email = try emails(kind: kind).first(where: { $0.contains("Message-ID: <\(kind).\(requestId)@registrar.local>") }) else {
            throw HarnessError("no \(kind) email for request \(requestId)")
        }
        return email
    }

    /// The code emails of `purpose` sent to `email` so far (each message once, whatever its copies).
    func codeEmails(to email: String, _ purpose: CodePurpose) throws -> Set<String> {
        let action = switch purpose {
        case .register: "finish signing up"
        case .login: "sign in"
        case .resetPassword: "reset your password"
        case .changeEmail: "confirm your new email address"
        case .deleteAccount: "delete your account"
        }
        return Set(try emails(kind: "code").filter { $0.contains("To: \(RegistrationRules.normalizedEmail(email))") && $0.contains("code to \(action)") })
    }

    /// The emails of one kind (`code`, `notice`) sent so far.
    func emails(kind: String) throws -> [String] {
        try backends.emails().filter { $0.contains("Message-ID: <\(kind).") }
    }

    /// A token request with a fresh reply key; returns the outcome and, when issued, the opened tokens.
    func signIn(_ grant: GrantType, email: String?, secret: String, id: String = UUID().uuidString) async throws -> (Event, TokenPair?) {
        let outcome = try await send(.tokenRequested(sealing.tokenRequest(grant, email: email, credential: secret, requestId: id)))
        return (outcome, try sealing.tokens(in: outcome, answering: id))
    }

    /// Registers an account with a password through the saga and returns its uid.
    func register(_ email: String, password: String) async throws -> String {
        let outcome = try await send(.registrationRequested(try await request(email: email, password: password)), timeout: .seconds(90))
        switch try sealing.registrationOutcome(outcome) {
        case .completed(let completed): return completed.uid
        case .failed(let failed): throw HarnessError("registration of \(email) did not complete: \(failed.reason.rawValue) — \(failed.message)")
        }
    }
}

/// The reason of a refusal, or nil for any other event.
func reason(_ event: Event) -> ReasonCode? {
    switch event {
    case .codeRefused(let refused): refused.reason
    case .tokenRefused(let refused): refused.reason
    case .accountChangeFailed(let failed): failed.reason
    case .operatorRefused(let refused): refused.reason
    default: nil
    }
}

/// The codes the harness read from the mail, by data directory, mailbox and purpose: an outstanding code is mailed again
/// rather than replaced, so a request refused in its cooldown goes on with the one read before.
private let codesRead = Mutex<[String: String]>([:])

extension RegistrarClient {
    /// Requests a `purpose` code for `email` and reads it from `emails` (the emails sent so far, however delivered).
    func mailedCode(_ purpose: CodePurpose, to email: String, in emails: () throws -> [String]) async throws -> String {
        let id = UUID().uuidString.lowercased()
        guard case .codeSent = try await send(.codeRequested(CodeRequested(requestId: id, email: email, purpose: purpose)), timeout: .seconds(60)) else {
            throw HarnessError("no \(purpose.rawValue) code sent to \(email)")
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let mail = try emails().first(where: { $0.contains("Message-ID: <code.\(id)@") }), let code = LiveSystem.code(in: mail) { return code }
            guard ContinuousClock.now < deadline else { throw HarnessError("no code mailed for \(id)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
