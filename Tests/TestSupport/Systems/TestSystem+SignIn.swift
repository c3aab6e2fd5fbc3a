import Domain
import Foundation
import SignIn
import Testing

/// What the sign-in tests do with an installation: request codes and read them back from the emails
/// sent, sign in and open the sealed tokens, register accounts.
extension FlowSystem {
    /// Requests a code and returns the answer.
    func requestCode(_ email: String, _ purpose: CodePurpose, id: String = UUID().uuidString) async throws -> Event {
        try await send(.codeRequested(CodeRequested(requestId: id, email: email, purpose: purpose)))
    }

    /// Requests a code, expects it sent, and reads it from its email.
    func code(for email: String, _ purpose: CodePurpose) async throws -> String {
        let id = UUID().uuidString
        guard case .codeSent = try await requestCode(email, purpose, id: id) else { throw HarnessError("no code sent to \(email)") }
        return try code(sentBy: id)
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
        let outcome = try await send(.registrationRequested(request(email: email, password: password)), timeout: .seconds(90))
        guard case .completed(let completed) = try sealing.registrationOutcome(outcome) else {
            throw HarnessError("registration of \(email) did not complete")
        }
        return completed.uid
    }
}

/// The reason of a refusal, or nil for any other event.
func reason(_ event: Event) -> ReasonCode? {
    switch event {
    case .codeRefused(let refused): refused.reason
    case .tokenRefused(let refused): refused.reason
    case .accountChangeFailed(let failed): failed.reason
    default: nil
    }
}
