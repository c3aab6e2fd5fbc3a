import Domain
import Foundation

/// Why a submitted code was refused. Internal: the requester sees only `invalid_credentials`.
public enum CodeRejection: String, Sendable, Equatable, CaseIterable {
    /// No code was issued for this email and purpose.
    case unknown = "code_unknown"
    case expired = "code_expired"
    /// Another request used it already.
    case used = "code_used"
    /// The digits are not the current code's; counted as a wrong attempt.
    case mismatch = "code_mismatch"
    /// Too many wrong digits: the digits are dead (the recovery form still counts).
    case exhausted = "code_exhausted"
    /// Too many wrong codes for the account: its code paths are locked, and the digits were not checked.
    case locked = "code_locked"
    /// Not the current code's recovery form, or no code at all: refused, counted nowhere (it cannot be guessed).
    case recoveryMismatch = "code_recovery_mismatch"
}

/// Whether a new code may be sent now.
public enum CodeAdmission: Sendable, Equatable {
    /// Send a new code.
    case issue
    /// A code is outstanding (neither used nor expired): mail it again for this request rather than replace it, so
    /// that requests by others never take the owner's code away.
    case resend
    /// This request had the current code mailed already (a redelivery): answer again, send nothing new (its email,
    /// if still owed, is sent from the record: ``CodeDispatchStep/deliver(_:)``).
    case alreadyIssued
    /// Too soon: the next code may be requested in this many seconds.
    case refuse(retryAfter: Int)
}

/// The pure rules of one-time codes: resend limits, issuing, and checking a submission.
///
/// Shaped so that requests by others cannot starve the owner: an outstanding code is mailed again rather than
/// replaced (at most one mail per `cooldown`), and the hourly limit counts only codes issued, each of which was used
/// or left to expire before the next: someone requesting codes for an address keeps one outstanding — which the owner
/// receives too — and can leave the owner without one for at most one code's lifetime (`lifetime`, 10 minutes) in each
/// hour, and each mail to wait at most `cooldown`.
public struct CodeRules: Sendable {
    public var policy: CodePolicy

    public init(policy: CodePolicy = .init()) {
        self.policy = policy
    }

    /// Whether `requestId` may have a code sent now, given the current record. The cooldown spaces the mails of an
    /// outstanding code; once it is used (which only the mailbox's owner can do) the next may be issued at once.
    public func admit(_ record: CodeRecord?, requestId: String, at now: Date) -> CodeAdmission {
        guard let record else { return .issue }
        if record.senders.contains(requestId) { return .alreadyIssued }
        if record.isOutstanding(at: now) {
            let wait = record.lastSentAt.map { $0.addingTimeInterval(policy.cooldown).timeIntervalSince(now) } ?? 0
            return wait > 0 ? .refuse(retryAfter: Int(wait.rounded(.up))) : .resend
        }
        let recent = recentSends(record, at: now)
        guard recent.count >= policy.hourlyLimit, let oldest = recent.min() else { return .issue }
        return .refuse(retryAfter: max(1, Int(oldest.addingTimeInterval(3600).timeIntervalSince(now).rounded(.up))))
    }

    /// The record after issuing a new code with `digest` and `recoveryDigest`: it replaces a used or expired one. Its
    /// email is owed (derived from `nonce`) until ``mailed(_:requestId:)``.
    public func issued(_ record: CodeRecord?, email: String, purpose: CodePurpose, digest: String, recoveryDigest: String?, nonce: String?,
                       requestId: String, at now: Date) -> CodeRecord {
        CodeRecord(email: email, purpose: purpose, digest: digest, recoveryDigest: recoveryDigest, issuedBy: requestId,
                   expiresAt: now.addingTimeInterval(policy.lifetime),
                   sentAt: (record.map { recentSends($0, at: now) } ?? []) + [now], nonce: nonce, senders: [requestId],
                   unmailed: [requestId])
    }

    /// The record after sending its outstanding code again for `requestId`, whose email is owed until mailed.
    public func resent(_ record: CodeRecord, requestId: String, at now: Date) -> CodeRecord {
        var record = record
        record.resentAt = now
        record.senders.append(requestId)
        record.unmailed.append(requestId)
        return record
    }

    /// The record once the email owed to `requestId` is sent. A record whose code has been replaced since is left as it is.
    public func mailed(_ record: CodeRecord?, requestId: String) -> CodeRecord? {
        guard var record else { return nil }
        record.unmailed.removeAll { $0 == requestId }
        return record
    }

    /// Checks a submission in `form` (whose digest is `digest`) by `requestId` answered to `replyKey`, updating the
    /// record: wrong digits count an attempt, the right code (in either form) marks it used by the request and its reply
    /// key. The request that used a code may submit it again (a redelivery) with the same reply key and is accepted;
    /// with another reply key it is a replay, and refused.
    public func verify(_ record: inout CodeRecord?, form: CodeForm, digest: String, requestId: String, replyKey: String? = nil,
                       at now: Date) -> CodeRejection? {
        guard var current = record else { return .unknown }
        let matches = switch form {
        case .digits: Self.equal(current.digest, digest)
        case .recovery: current.recoveryDigest.map { Self.equal($0, digest) } ?? false
        }
        if let user = current.usedBy {
            return user == requestId && current.usedWith == replyKey && matches ? nil : .used
        }
        if now >= current.expiresAt { return .expired }
        switch form {
        case .digits:
            if current.attempts >= policy.maximumAttempts { return .exhausted }
            guard matches else {
                current.attempts += 1
                record = current
                return .mismatch
            }
        case .recovery:
            guard matches else { return .recoveryMismatch }
        }
        current.usedBy = requestId
        current.usedWith = replyKey
        record = current
        return nil
    }

    private func recentSends(_ record: CodeRecord, at now: Date) -> [Date] {
        record.sentAt.filter { now.timeIntervalSince($0) < 3600 }
    }

    /// Compares two digests in time that depends only on their lengths.
    static func equal(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
