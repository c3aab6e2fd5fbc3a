import Courier
import Domain
import Foundation

/// The notices of account changes, mailed to the account's (old) address; none carries a secret.
enum Notices {
    static let passwordChanged = Letter("password_changed", kind: "notice")
    static let passwordReset = Letter("password_reset", kind: "notice")
    static let emailChanged = Letter("email_changed", kind: "notice", values: ["newEmail"])
    static let signedOutEverywhere = Letter("signed_out_everywhere", kind: "notice")

    /// Every notice of this flow.
    static let letters = [passwordChanged, passwordReset, emailChanged, signedOutEverywhere]

    /// The notice of the completed `record`, in the locale `locale` selects.
    static func message(of record: AccountChangeRecord, locale: String?, settings: MailSettings, date: Date) throws(StoreError) -> EmailMessage {
        let letter = switch record.kind {
        case .changePassword: passwordChanged
        case .resetPassword: passwordReset
        case .changeEmail: emailChanged
        case .signOutEverywhere: signedOutEverywhere
        }
        return try settings.message(letter, values: ["newEmail": record.newEmail], locale: locale, to: record.oldEmail,
                                    requestId: record.requestId, date: date)
    }
}
