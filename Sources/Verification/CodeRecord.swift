import Domain
import Foundation

/// The code state of one email and purpose: the current code (only its keyed hash) and the recent sends.
public struct CodeRecord: Sendable, Equatable {
    public var email: String
    public var purpose: CodePurpose
    /// HMAC-SHA256 (hex) of `purpose|email|code` with the server secret.
    public var digest: String
    /// The request that issued the current code.
    public var issuedBy: String
    public var expiresAt: Date
    /// Wrong submissions of the current code.
    public var attempts: Int
    /// The request that used the current code, once used.
    public var usedBy: String?
    /// The reply key of the request that used the code, when its answer is sealed to one (a sign-in).
    public var usedWith: String?
    /// When codes were sent, the last hour's only.
    public var sentAt: [Date]
    /// Until the current code's email is known to be sent: the random value the code derives from,
    /// so that a retry sends the very same code. Nil once sent.
    public var pendingNonce: String?

    public init(email: String, purpose: CodePurpose, digest: String, issuedBy: String, expiresAt: Date,
                attempts: Int = 0, usedBy: String? = nil, usedWith: String? = nil, sentAt: [Date], pendingNonce: String? = nil) {
        self.email = email
        self.purpose = purpose
        self.digest = digest
        self.issuedBy = issuedBy
        self.expiresAt = expiresAt
        self.attempts = attempts
        self.usedBy = usedBy
        self.usedWith = usedWith
        self.sentAt = sentAt
        self.pendingNonce = pendingNonce
    }
}
