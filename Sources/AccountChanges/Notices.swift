import Courier
import Domain
import Foundation

/// The notification emails of account changes; none carries a secret.
enum Notices {
    static func passwordChanged(_ record: AccountChangeRecord, settings: MailSettings, date: Date) -> EmailMessage {
        let how = record.kind == .resetPassword ? "reset with a code sent to this address" : "changed"
        return settings.message(
            kind: "notice", requestId: record.requestId, to: record.oldEmail, subject: "Your Registrar password was \(how)",
            text: "The password of your Registrar account was \(how), and every session was signed out.\n"
                + "If this was not you, reset your password now.\n",
            html: "<!DOCTYPE html><html><body><p>The password of your Registrar account was \(how), and every session was signed out.</p>"
                + "<p>If this was not you, reset your password now.</p></body></html>\n",
            date: date)
    }

    static func emailChanged(_ record: AccountChangeRecord, settings: MailSettings, date: Date) -> EmailMessage {
        settings.message(
            kind: "notice", requestId: record.requestId, to: record.oldEmail, subject: "Your Registrar email address was changed",
            text: "Your Registrar account now signs in with \(record.newEmail) instead of this address, and every session was signed out.\n"
                + "If this was not you, contact support at once.\n",
            html: "<!DOCTYPE html><html><body><p>Your Registrar account now signs in with <b>\(record.newEmail)</b> instead of this address, "
                + "and every session was signed out.</p>"
                + "<p>If this was not you, contact support at once.</p></body></html>\n",
            date: date)
    }
}
