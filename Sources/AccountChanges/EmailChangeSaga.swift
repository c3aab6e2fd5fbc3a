import Domain
import Foundation
import Accounts

/// The pure logic of the email change saga: what a profile worker's reply (or a deadline) does to a change.
///
/// The account takes the new email first (its unique index reserves it); the profile follows. If the
/// profile worker refuses, the account gets its old email back; if it does not answer in time, the
/// profile is set back to the old email first (ordered after the forward command on the same key),
/// then the account.
/// A transition names the record to save (nil: nothing changes) and the account update; the events to publish
/// are those of the record as saved (``events(of:)``), whose command carries the revision the store gave it.
public struct EmailChangeSaga: SagaMove, Equatable {
    public var record: AccountChangeRecord?
    public var change: AccountUpdate?

    /// The transition for `reply` on `change`, at `date`.
    public static func on(_ reply: Event, change: AccountChangeRecord, at date: Date) -> EmailChangeSaga {
        switch (reply, change.stage) {
        case (.profileEmailUpdated(let updated), .awaitingProfile) where updated.email == change.newEmail && updated.revision == change.revision:
            return advance(change, to: .completed, at: date)
        case (.profileEmailUpdated(let updated), .compensating) where updated.email == change.oldEmail && updated.revision == change.revision:
            return advance(change, to: .failed, at: date, update: AccountUpdate(email: change.oldEmail))
        case (.profileEmailRejected(let rejected), .awaitingProfile):
            return advance(change, to: .failed, at: date, update: AccountUpdate(email: change.oldEmail),
                           failure: Failure(rejected.reason, rejected.message))
        default:
            return EmailChangeSaga(record: nil, change: nil)
        }
    }

    /// A change still awaiting its profile at its deadline: set the profile back, then fail.
    public static func expire(_ change: AccountChangeRecord, at date: Date) -> EmailChangeSaga? {
        guard change.stage == .awaitingProfile else { return nil }
        return advance(change, to: .compensating, at: date,
                       failure: Failure(.deadlineExceeded, "The email change did not finish in time and was undone."))
    }

    /// What a change in its stage asks for (published again on redelivery): a command carries the stage and the
    /// revision the record took for it.
    public static func events(of change: AccountChangeRecord) -> [Event] {
        switch change.stage {
        case .awaitingProfile:
            [.updateProfileEmail(ProfileEmail(requestId: change.requestId, uid: change.uid, email: change.newEmail,
                                              step: change.stage.rawValue, revision: change.revision))]
        case .compensating:
            [.updateProfileEmail(ProfileEmail(requestId: change.requestId, uid: change.uid, email: change.oldEmail,
                                              step: change.stage.rawValue, revision: change.revision))]
        case .completed:
            [.accountChangeCompleted(AccountChangeCompleted(requestId: change.requestId, change: change.kind))]
        case .failed:
            [.accountChangeFailed(RequestRefusal(
                requestId: change.requestId, reason: change.failure?.reason ?? .deadlineExceeded,
                message: change.failure?.message ?? "The account change failed."))]
        }
    }

    private static func advance(_ change: AccountChangeRecord, to stage: AccountChangeStage, at date: Date,
                                update: AccountUpdate? = nil, failure: Failure? = nil) -> EmailChangeSaga {
        var next = change
        next.stage = stage
        next.failure = failure ?? change.failure
        next.updatedAt = date
        return EmailChangeSaga(record: next, change: update)
    }

    /// The events of the record as saved.
    public func events(after saved: AccountChangeRecord) -> [Event] { Self.events(of: saved) }
}
