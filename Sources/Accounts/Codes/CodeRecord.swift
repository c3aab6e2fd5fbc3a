import Domain
import Foundation

/// The code state of one email and purpose: the current code (only its keyed hashes) and the recent sends.
public struct CodeRecord: Sendable, Equatable {
    public var email: String
    public var purpose: CodePurpose
    /// HMAC-SHA256 (hex) of `purpose|email|code` with the server secret: the six digits.
    public var digest: String
    /// HMAC-SHA256 (hex) of `purpose|email|recovery code`: the long form mailed beside the digits (``CodeForm/recovery``);
    /// nil for a code of an earlier build.
    public var recoveryDigest: String?
    /// The request that issued the current code.
    public var issuedBy: String
    public var expiresAt: Date
    /// Wrong submissions of the current code's digits.
    public var attempts: Int
    /// The request that used the current code, once used.
    public var usedBy: String?
    /// The reply key of the request that used the code, when its answer is sealed to one (a sign-in).
    public var usedWith: String?
    /// When codes were issued, the last hour's only: what the hourly limit counts (each one used or expired by the time
    /// the next is issued, since an outstanding code is sent again rather than replaced).
    public var sentAt: [Date]
    /// When the current code was last sent again, if it was.
    public var resentAt: Date?
    /// The random value the current code derives from, kept while it may be sent again (so a retry or another
    /// request mails the very same code).
    public var nonce: String?
    /// The requests the current code was mailed for, its issuer first: a redelivered one is answered again.
    public var senders: [String]
    /// Those of `senders` whose email is not known to be sent yet.
    public var unmailed: [String]

    public init(email: String, purpose: CodePurpose, digest: String, recoveryDigest: String? = nil, issuedBy: String, expiresAt: Date,
                attempts: Int = 0, usedBy: String? = nil, usedWith: String? = nil, sentAt: [Date], resentAt: Date? = nil,
                nonce: String? = nil, senders: [String]? = nil, unmailed: [String] = []) {
        self.email = email
        self.purpose = purpose
        self.digest = digest
        self.recoveryDigest = recoveryDigest
        self.issuedBy = issuedBy
        self.expiresAt = expiresAt
        self.attempts = attempts
        self.usedBy = usedBy
        self.usedWith = usedWith
        self.sentAt = sentAt
        self.resentAt = resentAt
        self.nonce = nonce
        self.senders = senders ?? [issuedBy]
        self.unmailed = unmailed
    }

    /// Whether the current code may still be used at `now` (neither used nor expired) and sent again.
    public func isOutstanding(at now: Date) -> Bool {
        usedBy == nil && now < expiresAt && nonce != nil
    }

    /// When the current code was last mailed (issued or sent again).
    public var lastSentAt: Date? {
        [sentAt.max(), resentAt].compactMap { $0 }.max()
    }
}
