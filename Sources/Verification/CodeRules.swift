import Domain
import Foundation

/// Why a submitted code was refused. Internal: the requester sees only `invalid_credentials`.
public enum CodeRejection: String, Sendable, Equatable, CaseIterable {
    /// No code was issued for this email and purpose.
    case unknown = "code_unknown"
    case expired = "code_expired"
    /// Another request used it already.
    case used = "code_used"
    /// The code is not the current one; counted as a wrong attempt.
    case mismatch = "code_mismatch"
    /// Too many wrong attempts: the code is dead.
    case exhausted = "code_exhausted"
    /// Too many wrong codes for the account: its code paths are locked, and the code was not checked.
    case locked = "code_locked"
}

/// Whether a new code may be sent now.
public enum CodeAdmission: Sendable, Equatable {
    /// Send a new code.
    case issue
    /// This request issued the current code already (a redelivery): answer again, issue nothing (its
    /// email, if still pending, is sent from the record: ``CodeDispatchStep/deliver(_:)``).
    case alreadyIssued
    /// Too soon: the next code may be requested in this many seconds.
    case refuse(retryAfter: Int)
}

/// The pure rules of one-time codes: resend limits, issuing, and checking a submission.
public struct CodeRules: Sendable {
    public var policy: CodePolicy

    public init(policy: CodePolicy = .init()) {
        self.policy = policy
    }

    /// Whether `requestId` may have a code sent now, given the current record.
    public func admit(_ record: CodeRecord?, requestId: String, at now: Date) -> CodeAdmission {
        guard let record else { return .issue }
        if record.issuedBy == requestId { return .alreadyIssued }
        let recent = recentSends(record, at: now)
        var wait = 0.0
        if let last = recent.max() { wait = max(wait, last.addingTimeInterval(policy.cooldown).timeIntervalSince(now)) }
        if recent.count >= policy.hourlyLimit, let oldest = recent.min() {
            wait = max(wait, oldest.addingTimeInterval(3600).timeIntervalSince(now))
        }
        return wait > 0 ? .refuse(retryAfter: Int(wait.rounded(.up))) : .issue
    }

    /// The record after issuing a new code with `digest`: it replaces any previous code. Its email is
    /// pending (derived from `nonce`) until ``mailed(_:requestId:)``.
    public func issued(_ record: CodeRecord?, email: String, purpose: CodePurpose, digest: String, nonce: String?,
                       requestId: String, at now: Date) -> CodeRecord {
        CodeRecord(email: email, purpose: purpose, digest: digest, issuedBy: requestId,
                   expiresAt: now.addingTimeInterval(policy.lifetime),
                   sentAt: (record.map { recentSends($0, at: now) } ?? []) + [now], pendingNonce: nonce)
    }

    /// The record once the email of the code `requestId` issued is sent: its nonce is dropped. A record
    /// whose code another request has replaced since is left as it is.
    public func mailed(_ record: CodeRecord?, requestId: String) -> CodeRecord? {
        guard var record, record.issuedBy == requestId else { return record }
        record.pendingNonce = nil
        return record
    }

    /// Checks a submission (its `digest`) by `requestId` answered to `replyKey`, updating the record: a
    /// wrong code counts an attempt, the right one marks the code used by the request and its reply key.
    /// The request that used a code may submit it again (a redelivery) with the same reply key and is
    /// accepted; with another reply key it is a replay, and refused.
    public func verify(_ record: inout CodeRecord?, digest: String, requestId: String, replyKey: String? = nil,
                       at now: Date) -> CodeRejection? {
        guard var current = record else { return .unknown }
        if let user = current.usedBy {
            return user == requestId && current.usedWith == replyKey && Self.equal(current.digest, digest) ? nil : .used
        }
        if current.attempts >= policy.maximumAttempts { return .exhausted }
        if now >= current.expiresAt { return .expired }
        guard Self.equal(current.digest, digest) else {
            current.attempts += 1
            record = current
            return .mismatch
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
