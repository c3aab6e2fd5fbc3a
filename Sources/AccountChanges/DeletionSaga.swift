import Accounts
import Domain
import Foundation

/// The pure logic of the account deletion saga: what a worker's reply (or a deadline) does to a deletion.
///
/// The account is marked `deleting` first (every session ended, no sign-in), then the image worker erases the avatar,
/// then the profile worker the profile, then the account and every row naming it go in one transaction. A deletion
/// is never undone: a step that fails is retried by its worker, and one that does not answer in time is sent again
/// (the deadline sweeps forward, not back). Every step is idempotent, so redeliveries and crashes between steps only
/// repeat one; a reply the saga is already past republishes what its stage asks for.
public struct DeletionSaga: SagaMove, Equatable {
    public var record: DeletionRecord?
    /// Deletions change their account through the record itself (``DeletionStore/save(_:)``).
    public var change: Never?

    /// The transition for `reply` on `deletion`, at `date`.
    public static func on(_ reply: Event, deletion: DeletionRecord, at date: Date) -> DeletionSaga {
        switch (reply, deletion.stage) {
        case (.avatarErased(let erased), .erasingAvatar) where erased.imageId == deletion.imageId:
            return DeletionSaga(record: deletion.moved(to: .erasingProfile, at: date))
        case (.profileErased, .erasingProfile):
            var completed = deletion.moved(to: .completed, at: date)
            completed.email = ""
            return DeletionSaga(record: completed)
        default:
            return DeletionSaga(record: nil)
        }
    }

    /// Why `reply` is not about `deletion` (another uid or image id than the record's), or nil when it names the saga's own.
    public static func mismatch(of reply: Event, with deletion: DeletionRecord) -> String? {
        switch reply {
        case .avatarErased(let erased) where erased.uid != deletion.uid || erased.imageId != deletion.imageId:
            "AvatarErased for deletion \(deletion.requestId) names another uid or image id than the deletion's"
        case .profileErased(let erased) where erased.uid != deletion.uid:
            "ProfileErased for deletion \(deletion.requestId) names another uid than the deletion's"
        default:
            nil
        }
    }

    /// A deletion still waiting for a step at its deadline: the same step again, its clock restarted (the store gives
    /// the command a new revision, so that no command another saga sent meanwhile makes it stale).
    public static func expire(_ deletion: DeletionRecord, at date: Date) -> DeletionSaga? {
        guard DeletionStage.waiting.contains(deletion.stage) else { return nil }
        var again = deletion
        again.updatedAt = date
        return DeletionSaga(record: again)
    }

    /// The first stage of a deletion: erasing the avatar, or the profile straight away when there is none.
    public static func firstStage(imageId: String?) -> DeletionStage { imageId == nil ? .erasingProfile : .erasingAvatar }

    /// What a deletion in its stage asks for (published again on redelivery and by the sweep).
    public static func events(of deletion: DeletionRecord) -> [Event] {
        switch deletion.stage {
        case .erasingAvatar:
            [.eraseAvatar(EraseAvatar(requestId: deletion.requestId, uid: deletion.uid, imageId: deletion.imageId ?? "",
                                      step: deletion.stage.rawValue, revision: deletion.revision))]
        case .erasingProfile:
            [.eraseProfile(EraseProfile(requestId: deletion.requestId, uid: deletion.uid, step: deletion.stage.rawValue,
                                        revision: deletion.revision))]
        case .completed:
            [.accountDeleted(AccountDeleted(requestId: deletion.requestId))]
        }
    }

    /// The events of the record as saved.
    public func events(after saved: DeletionRecord) -> [Event] { Self.events(of: saved) }
}

extension DeletionRecord {
    /// This record moved to `stage` at `date`.
    func moved(to stage: DeletionStage, at date: Date) -> DeletionRecord {
        var next = self
        next.stage = stage
        next.updatedAt = date
        return next
    }
}
