import Courier
import Domain
import Foundation

/// The email that carries a one-time code: one letter per purpose (`<purpose>_code`), the code only in its body.
enum CodeLetter {
    /// The letter of codes for `purpose`.
    static func letter(for purpose: CodePurpose) -> Letter {
        Letter("\(purpose.rawValue)_code", kind: "code", values: ["code", "minutes", "oneMinute"])
    }

    static func message(code: String, purpose: CodePurpose, to email: String, requestId: String, minutes: Int, locale: String?,
                        settings: MailSettings, date: Date) throws(StoreError) -> EmailMessage {
        try settings.message(letter(for: purpose), values: ["code": code, "minutes": String(max(minutes, 1)), "oneMinute": minutes <= 1 ? "1" : ""],
                             locale: locale, to: email, requestId: requestId, date: date)
    }
}
