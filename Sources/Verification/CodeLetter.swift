import Accounts
import Courier
import Domain
import Foundation

/// The email that carries a one-time code, one letter per purpose (`<purpose>_code`): its six digits and, for when
/// they are refused (mistyped too often, or the account's code sign-in locked by someone else's guesses), its
/// recovery form, which always counts. The codes are only in its body.
struct CodeLetter: Sendable {
    var code: String
    var recoveryCode: String
    /// Whether the digits were mistyped too often to count any more.
    var digitsDisabled: Bool
    var purpose: CodePurpose
    var expiresAt: Date
    var date: Date

    /// The letter of codes for `purpose`.
    static func letter(for purpose: CodePurpose) -> Letter {
        Letter("\(purpose.rawValue)_code", kind: "code", values: ["code", "recoveryCode", "digitsDisabled", "minutes", "oneMinute"])
    }

    func message(to email: String, requestId: String, locale: String?, settings: MailSettings) throws(StoreError) -> EmailMessage {
        let minutes = max(Int((expiresAt.timeIntervalSince(date) / 60).rounded(.up)), 1)
        return try settings.message(
            Self.letter(for: purpose),
            values: ["code": code, "recoveryCode": CodeForm.display(recovery: recoveryCode), "digitsDisabled": digitsDisabled ? "1" : "",
                     "minutes": String(minutes), "oneMinute": minutes == 1 ? "1" : ""],
            locale: locale, to: email, requestId: requestId, date: date)
    }
}
