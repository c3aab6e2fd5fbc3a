import Domain
import Foundation

/// Checks submitted codes against the code store; used by registration, sign-in and account changes.
public struct CodeVerifier: Sendable {
    public var codes: any CodeStore
    public var secrets: any CodeSecrets
    public var rules: CodeRules

    public init(codes: any CodeStore, secrets: any CodeSecrets, rules: CodeRules = .init()) {
        self.codes = codes
        self.secrets = secrets
        self.rules = rules
    }

    /// Nil when `code` (its digits or its recovery form) is the current code of `email` for one of `purposes` (tried in
    /// order, moving on only where none was issued) and `requestId`, answered to `replyKey` if sealed to one, may use
    /// it; otherwise why not.
    public func verify(_ code: String, email: String, purposes: [CodePurpose], requestId: String, replyKey: String? = nil,
                       at now: Date) throws(StoreError) -> CodeRejection? {
        guard let form = CodeForm(code) else { return .recoveryMismatch }
        for purpose in purposes {
            let digest = secrets.digest(of: form.value, purpose: purpose, email: email)
            let rejection = try codes.update(email: email, purpose: purpose) { (record) throws(StoreError) -> CodeRejection? in
                rules.verify(&record, form: form, digest: digest, requestId: requestId, replyKey: replyKey, at: now)
            }
            guard rejection == .unknown else { return rejection }
        }
        return .unknown
    }
}
