import Foundation

/// What an operator does to an account (`registrar operator`), each answered with the account as it then stands
/// (``AccountReport``) and announced on `account.events` with the operator's name as its actor.
public enum OperatorAction: String, Codable, Sendable, CaseIterable {
    /// Reads the account: uid, state, whether its mailbox is proven, its locks and its live sessions.
    case find
    /// Clears the account's failure counts and locks (passwords and codes).
    case unlock
    /// Stops the account: no sign-in, no refresh, no change; every session ends at once.
    case disable
    /// Undoes `disable`, and nothing else: the sessions it ended stay ended.
    case enable
    /// Drops the password and ends every session: the owner sets a new one with a `reset_password` code, which
    /// `registrar operator reset-password` then requests from the code dispatch worker.
    case resetPassword = "reset_password"
    /// Deletes the account for good through the deletion saga, without its owner's re-authentication.
    case delete
}

/// Published by the operator's tools to `operator.requests`, signed with the operator role's event key (any other
/// signature, or none, is refused unread): `action` on the account of `email`, by the operator `actor` (a name of
/// letters, digits, `.`, `-` and `_`, which every announcement of the action carries). The answer, `OperatorAnswered` or
/// `OperatorRefused`, is given once per request id: a replay changes nothing more. The signed `issuedAt` bounds a
/// captured request's life to ``maximumAge``, far within the answers' retention, so that no replay outlives its answer.
@PublicInit
public struct OperatorRequested: RequestMessage, Equatable {
    public var requestId: String
    public var action: OperatorAction
    public var email: String
    public var actor: String
    /// The operator's X25519 public key (base64): the report is sealed to it.
    public var replyKey: String
    /// The language of the notice a deletion mails the account's owner (a BCP 47 priority list).
    public var locale: String? = nil
    /// When the operator's tools issued the request, in Unix seconds.
    public var issuedAt: Int
}

/// The action of an ``OperatorRequested`` was done: `sealedReport` is an ``AccountReport`` (JSON) sealed to the
/// request's `replyKey`.
@PublicInit
public struct OperatorAnswered: RequestMessage, Equatable {
    public var requestId: String
    public var action: OperatorAction
    public var sealedReport: String
}

/// What `OperatorAnswered.sealedReport` opens to: the account after the action. No secret: no hash, no token, no code.
@PublicInit
public struct AccountReport: SealedAnswer, Equatable {
    public static let purpose = AnswerPurpose.accountReport
    public var requestId: String
    public var action: OperatorAction
    public var uid: String
    public var email: String
    /// `active`, `disabled`, `pending` (a registration in flight) or `deleting`.
    public var state: String
    public var verified: Bool
    public var hasPassword: Bool
    /// Until when wrong passwords, and wrong codes, lock the account's sign-ins; nil when not locked.
    public var passwordLockedUntil: Date?
    public var codeLockedUntil: Date?
    /// The live sessions (refresh-token families), newest first.
    public var sessions: [SessionView]
}

extension OperatorRequested {
    /// Whether `actor` names an operator: 1–64 letters, digits, `.`, `-` or `_` (no address, nothing to escape).
    public static func isWellFormed(actor: String) -> Bool {
        (1...64).contains(actor.unicodeScalars.count) && actor.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)
        }
    }

    /// How long after `issuedAt` a request is taken: ten minutes, far within the retention of its answer.
    public static let maximumAge: TimeInterval = 600
    /// How far ahead of the account worker's clock `issuedAt` may be: the clock skew Registrar tolerates (`--seal-max-age`).
    public static let maximumLead: TimeInterval = 300

    /// Whether the request was issued within ``maximumAge`` before `now`, and at most ``maximumLead`` after it.
    public func isFresh(at now: Date) -> Bool {
        let age = now.timeIntervalSince1970 - TimeInterval(issuedAt)
        return age <= Self.maximumAge && age >= -Self.maximumLead
    }
}
