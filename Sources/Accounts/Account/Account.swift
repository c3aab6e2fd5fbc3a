import Domain
import Foundation

/// Whether an account may sign in yet.
public enum AccountStatus: String, Codable, Sendable {
    /// Created by a registration still in progress: can never sign in.
    case pending
    /// Activated by a completed registration.
    case active
    /// Its deletion began (``DeletionRecord``): no sign-in, no refresh, every session ended; it is gone once the deletion
    /// completes.
    case deleting
    /// Stopped by an operator (`registrar operator disable`): no sign-in, no refresh, no change, every session ended;
    /// `enable` makes it active again.
    case disabled
}

/// An auth account. `email` is normalised; `passwordHash` is an encoded argon2id string (empty: no password).
public struct Account: Sendable, Equatable {
    public var uid: String
    public var email: String
    public var passwordHash: String
    public var status: AccountStatus
    public var registrationId: String
    public var createdAt: Date
    /// When the owner first proved they read the mailbox of `email` (a code of a registration, a sign-in, a reset
    /// or an email change); nil for an account made before registrations needed a code, until its first proof.
    public var verifiedAt: Date?
    /// The request whose code first proved the mailbox of an account made before registrations needed one (nil
    /// for an account proven at its creation): its notice is mailed once, as the same message on a redelivery.
    public var verifiedBy: String?
    /// Sessions issued before this time are over (``admitsSession(issuedAt:)``): set by every credential change.
    public var notBefore: Date?
    /// The revision of the account's latest saga step; every command a saga sends carries it (``SagaCommand``).
    public var revision: Int

    public init(uid: String, email: String, passwordHash: String, status: AccountStatus, registrationId: String, createdAt: Date,
                verifiedAt: Date? = nil, verifiedBy: String? = nil, notBefore: Date? = nil, revision: Int = 0) {
        self.uid = uid
        self.email = email
        self.passwordHash = passwordHash
        self.status = status
        self.registrationId = registrationId
        self.createdAt = createdAt
        self.verifiedAt = verifiedAt
        self.verifiedBy = verifiedBy
        self.notBefore = notBefore
        self.revision = revision
    }

    /// Whether the owner has proven the mailbox.
    public var isVerified: Bool { verifiedAt != nil }

    /// Whether the account has a password (an account made by code sign-in, or whose unproven password was
    /// dropped at its first proof, has none).
    public var hasPassword: Bool { !passwordHash.isEmpty }
}

/// What a change writes to an account (an account change, the first proof of its mailbox).
public struct AccountUpdate: Sendable, Equatable {
    public var passwordHash: String?
    public var email: String?
    /// Ends every session issued before this time (``Account/notBefore``): a credential changed.
    public var endsSessionsAt: Date?
    /// The mailbox of the account's (new) email was proven at this time, by a code.
    public var provesMailboxAt: Date?
    /// The request that proved it, when this is the first proof (``Account/verifiedBy``).
    public var provenBy: String?
    /// The password hash the request was authenticated against: a change begun with it applies only while the account
    /// is active and still has it, so an operator's disable or forced reset committed meanwhile wins.
    public var authenticatedAgainst: String?

    public init(passwordHash: String? = nil, email: String? = nil, endsSessionsAt: Date? = nil, provesMailboxAt: Date? = nil,
                provenBy: String? = nil, authenticatedAgainst: String? = nil) {
        self.authenticatedAgainst = authenticatedAgainst
        self.passwordHash = passwordHash
        self.email = email
        self.endsSessionsAt = endsSessionsAt
        self.provesMailboxAt = provesMailboxAt
        self.provenBy = provenBy
    }
}

/// The account's sessions: a credential change (password change or reset, email change, the first proof of the
/// mailbox, signing out everywhere) sets ``Account/notBefore``, and every token issued before it is refused — refresh
/// tokens by their issue time, access tokens by theirs (`iat_ms`), wherever they are checked (`GET /me`, a refresh),
/// so no session outlives the change. A token minted after the change is stamped after it, even within the same
/// millisecond, and a change ends every session minted before it even then.
extension Account {
    /// The least step between a change and the sessions around it: times are compared in whole milliseconds.
    public static let sessionTick = 0.001

    /// Whether a session (refresh or access token) issued at `issuedAt` still counts: issued after the last change.
    public func admitsSession(issuedAt: Date) -> Bool {
        notBefore.map { Self.milliseconds(issuedAt) > Self.milliseconds($0) } ?? true
    }

    /// The issue time of a session minted now, in whole milliseconds: now, or a tick after ``notBefore`` when the clock
    /// has not passed it (the change within this millisecond, or made by a replica whose clock is a little ahead).
    public func sessionIssueTime(at now: Date) -> Date {
        let stamp = Self.millisecondsRoundedUp(now)
        guard let notBefore, stamp <= Self.milliseconds(notBefore) else { return Self.date(milliseconds: stamp) }
        return Self.date(milliseconds: Self.milliseconds(notBefore) + 1)
    }

    /// The ``notBefore`` of a credential change at `date`, in whole milliseconds: `date`, or a tick after the last
    /// cut-off when sessions may have been stamped after it already (two changes within a millisecond).
    public func sessionCutoff(changedAt date: Date) -> Date {
        Self.date(milliseconds: max(Self.millisecondsRoundedUp(date), notBefore.map { Self.milliseconds($0) + 1 } ?? 0))
    }

    /// `date` in whole Unix milliseconds, the nearest (a stored time is one already, give or take its last bit).
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// `date` in whole Unix milliseconds, the next one unless it is one already.
    static func millisecondsRoundedUp(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000 - 0.001).rounded(.up))
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
