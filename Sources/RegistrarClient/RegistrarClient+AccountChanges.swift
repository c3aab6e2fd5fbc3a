import Domain
import Foundation

/// Account changes as a client publishes them: each secret sealed for its field and the request.
extension RequestSealing {
    /// A password change, re-authenticated with `password`.
    public func passwordChange(email: String, password: String, newPassword: String,
                               locale: String? = nil, requestId: String = UUID().uuidString.lowercased()) -> PasswordChangeRequested {
        PasswordChangeRequested(requestId: requestId, email: email,
                                sealedPassword: seal(password, for: .reauthentication, requestId: requestId, email: email),
                                sealedNewPassword: seal(newPassword, for: .newPassword, requestId: requestId, email: email),
                                replyKey: replyKey(for: requestId), locale: locale)
    }

    /// A password reset, proven by a `reset_password` code.
    public func passwordReset(email: String, code: String, newPassword: String,
                              locale: String? = nil, requestId: String = UUID().uuidString.lowercased()) -> PasswordResetRequested {
        PasswordResetRequested(requestId: requestId, email: email, sealedCode: seal(code, for: .code, requestId: requestId, email: email),
                               sealedNewPassword: seal(newPassword, for: .newPassword, requestId: requestId, email: email),
                               replyKey: replyKey(for: requestId), locale: locale)
    }

    /// An email change, re-authenticated with `password` and proven by a `change_email` code sent to `newEmail`. `locale`: the
    /// language of the notices (a `locale` field).
    public func emailChange(email: String, password: String, newEmail: String, code: String,
                            locale: String? = nil, requestId: String = UUID().uuidString.lowercased()) -> EmailChangeRequested {
        EmailChangeRequested(requestId: requestId, email: email,
                             sealedPassword: seal(password, for: .reauthentication, requestId: requestId, email: email),
                             newEmail: newEmail, sealedCode: seal(code, for: .code, requestId: requestId, email: email),
                             replyKey: replyKey(for: requestId), locale: locale)
    }
}
