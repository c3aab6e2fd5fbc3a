import Courier
import Domain
import Foundation

/// The notice of a first proof of an account's mailbox through a sign-in by code: the account was registered before
/// registrations needed a code, possibly by someone else; what they set is gone. It carries no secret.
enum ProofNotice {
    static let letter = Letter("mailbox_proven", kind: "notice")

    static func message(to email: String, requestId: String, settings: MailSettings, date: Date) throws(StoreError) -> EmailMessage {
        try settings.message(letter, locale: nil, to: email, requestId: requestId, date: date)
    }
}
