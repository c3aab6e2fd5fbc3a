/// Which account change a request asks for.
public enum AccountChangeKind: String, Codable, Sendable, CaseIterable {
    case changePassword = "change_password"
    case resetPassword = "reset_password"
    case changeEmail = "change_email"
    /// Every session signed out (`SignOutRequested` of scope `everywhere`, on `auth.requests`): recorded beside the
    /// changes so that its notice follows its commit; its answer is `SignedOut`, never an `AccountChangeCompleted`.
    case signOutEverywhere = "sign_out_everywhere"
}

/// Published by a client to `account.requests`: change the password of `email`, re-authenticating
/// with the old one. Both passwords are sealed to the account worker's public key (``SealedSecret``s bound
/// to this request and `replyKey`, the client's X25519 public key in base64).
@PublicInit
public struct PasswordChangeRequested: RequestMessage, Equatable {
    public var requestId: String
    public var email: String
    public var sealedPassword: String
    public var sealedNewPassword: String
    public var replyKey: String
    /// The language of the notice: a BCP 47 tag or a priority list of them; English when absent or unknown.
    public var locale: String? = nil
}

/// Published by a client to `account.requests`: set a new password, proven by a `reset_password` code.
@PublicInit
public struct PasswordResetRequested: RequestMessage, Equatable {
    public var requestId: String
    public var email: String
    public var sealedCode: String
    public var sealedNewPassword: String
    public var replyKey: String
    /// The language of the notice: a BCP 47 tag or a priority list of them; English when absent or unknown.
    public var locale: String? = nil
}

/// Published by a client to `account.requests`: move the account of `email` to `newEmail`,
/// re-authenticating with the password and proving `newEmail` with a `change_email` code sent there.
@PublicInit
public struct EmailChangeRequested: RequestMessage, Equatable {
    public var requestId: String
    public var email: String
    public var sealedPassword: String
    public var newEmail: String
    public var sealedCode: String
    public var replyKey: String
    /// The language of the notice: a BCP 47 tag or a priority list of them; English when absent or unknown.
    public var locale: String? = nil
}

/// The email of `users/<uid>` in the email change saga: `UpdateProfileEmail` asks the profile
/// worker to set it (forward or compensating), `ProfileEmailUpdated` says it is set, echoing the command's
/// `step` and `revision`.
@PublicInit
public struct ProfileEmail: RequestMessage, SagaCommand, Equatable {
    public var requestId: String
    public var uid: String
    public var email: String
    public var step: String
    public var revision: Int
}

/// The profile worker could not set the profile's email (`ProfileEmailRejected`) or a profile update's fields
/// (`ProfileUpdateRejected`); the profile is unchanged.
@PublicInit
public struct ProfileEmailRejected: RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
    public var reason: ReasonCode
    public var message: String
}

/// The profile worker is alive but cannot set the profile's email yet (its store is failing) and keeps retrying: a
/// heartbeat that keeps the email change from its deadline while the store is down.
public typealias ProfileEmailWaiting = RequestProfileNotice

/// The account change is done (for an email change: account and profile both carry the new email). It names
/// no account: outcome topics carry no personal data.
@PublicInit
public struct AccountChangeCompleted: RequestMessage, Equatable {
    public var requestId: String
    public var change: AccountChangeKind
}
