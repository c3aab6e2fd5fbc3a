import Courier
import Domain
import Foundation

/// The email that carries a one-time code: its six digits and, for when they are refused (mistyped too often, or
/// the account's code sign-in locked by someone else's guesses), its recovery form, which always counts.
struct CodeLetter: Sendable {
    var code: String
    var recoveryCode: String
    /// Whether the digits were mistyped too often to count any more.
    var digitsDisabled: Bool
    var purpose: CodePurpose
    var expiresAt: Date
    var date: Date

    func message(to email: String, requestId: String, settings: MailSettings) -> EmailMessage {
        let action = switch purpose {
        case .register: "finish signing up"
        case .login: "sign in"
        case .resetPassword: "reset your password"
        case .changeEmail: "confirm your new email address"
        }
        let minutes = Int((expiresAt.timeIntervalSince(date) / 60).rounded(.up))
        let validity = minutes >= 1 ? "\(minutes) minute\(minutes == 1 ? "" : "s")" : "a short while"
        let recovery = CodeForm.display(recovery: recoveryCode)
        // The recovery code on a line of its own: no mail transport wraps it.
        let digits = digitsDisabled
            ? "The code to \(action) was mistyped too often; enter this one instead:\n\(recovery)"
            : "Your code to \(action) is: \(code)\n\nIf it is refused, enter this one instead:\n\(recovery)"
        let htmlDigits = digitsDisabled
            ? "<p>The code to \(action) was mistyped too often; enter this one instead:</p><p style=\"font-size:20px\"><b>\(recovery)</b></p>"
            : "<p>Your code to \(action) is:</p><p style=\"font-size:24px\"><b>\(code)</b></p>"
                + "<p>If it is refused, enter this one instead: <b>\(recovery)</b></p>"
        return settings.message(
            kind: "code", requestId: requestId, to: email, subject: "Your Registrar code",
            text: "\(digits)\n\nIt is valid for \(validity) and can be used once.\nIf you did not ask for it, ignore this email.\n",
            html: "<!DOCTYPE html><html><body>\(htmlDigits)"
                + "<p>It is valid for \(validity) and can be used once. If you did not ask for it, ignore this email.</p></body></html>\n",
            date: date)
    }
}
