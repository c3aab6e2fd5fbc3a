import Courier
import Domain
import Foundation

/// The email that carries a one-time code.
enum CodeLetter {
    static func message(code: String, purpose: CodePurpose, to email: String, requestId: String, minutes: Int,
                        settings: MailSettings, date: Date) -> EmailMessage {
        let action = switch purpose {
        case .register: "finish signing up"
        case .login: "sign in"
        case .resetPassword: "reset your password"
        case .changeEmail: "confirm your new email address"
        }
        let validity = minutes >= 1 ? "\(minutes) minute\(minutes == 1 ? "" : "s")" : "a short while"
        return settings.message(
            kind: "code", requestId: requestId, to: email, subject: "Your Registrar code",
            text: "Your code to \(action) is: \(code)\n\nIt is valid for \(validity) and can be used once.\n"
                + "If you did not ask for it, ignore this email.\n",
            html: "<!DOCTYPE html><html><body><p>Your code to \(action) is:</p><p style=\"font-size:24px\"><b>\(code)</b></p>"
                + "<p>It is valid for \(validity) and can be used once. If you did not ask for it, ignore this email.</p></body></html>\n",
            date: date)
    }
}
