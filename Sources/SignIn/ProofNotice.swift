import Courier
import Foundation

/// The notice of a first proof of an account's mailbox through a sign-in by code: the account was registered before
/// registrations needed a code, possibly by someone else; what they set is gone. It carries no secret.
enum ProofNotice {
    static func message(to email: String, requestId: String, settings: MailSettings, date: Date) -> EmailMessage {
        settings.message(
            kind: "notice", requestId: requestId, to: email, subject: "Your Registrar email address is confirmed",
            text: "You signed in with a code sent to this address, which confirms it for your Registrar account.\n"
                + "The account was made before its address was confirmed, so any password set on it before no longer works, "
                + "and every other session was signed out. To sign in with a password, set one with a password reset.\n"
                + "Check the account's profile: someone else may have filled it in.\n",
            html: "<!DOCTYPE html><html><body><p>You signed in with a code sent to this address, which confirms it for your Registrar account.</p>"
                + "<p>The account was made before its address was confirmed, so any password set on it before no longer works, "
                + "and every other session was signed out. To sign in with a password, set one with a password reset.</p>"
                + "<p>Check the account's profile: someone else may have filled it in.</p></body></html>\n",
            date: date)
    }
}
