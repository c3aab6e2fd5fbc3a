/// What a one-time code proves; a code only ever counts for the purpose it was issued for.
public enum CodePurpose: String, Codable, Sendable, CaseIterable {
    case register
    case login
    case resetPassword = "reset_password"
    case changeEmail = "change_email"
    /// Re-authenticates an account's deletion (`DELETE /me`).
    case deleteAccount = "delete_account"
}

/// Published by a client to `code.requests`: send a one-time code to `email`.
@PublicInit
public struct CodeRequested: RequestMessage, Equatable {
    public var requestId: String
    public var email: String
    public var purpose: CodePurpose
    /// The language of the mail: a BCP 47 tag or a priority list of them (`zh-CN, en`); English when absent or unknown.
    public var locale: String? = nil
}

/// A code was sent; it is valid for `expiresIn` seconds. Looks the same whether or not an account
/// has the email.
@PublicInit
public struct CodeSent: RequestMessage, Equatable {
    public var requestId: String
    public var purpose: CodePurpose
    public var expiresIn: Int
}

/// No code was sent. With `code_rate_limited`, `retryAfter` says in how many seconds one may be requested again.
@PublicInit
public struct CodeRefused: RequestMessage, Equatable {
    public var requestId: String
    public var reason: ReasonCode
    public var message: String
    public var retryAfter: Int? = nil
}
