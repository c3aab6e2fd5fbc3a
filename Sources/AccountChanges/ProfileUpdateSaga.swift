import Accounts
import Domain
import Foundation

/// The pure logic of the profile update saga: what a worker's reply (or a deadline) does to an update.
///
/// Forward: the image worker stores the new avatar under a new id, the profile worker sets the fields (the new avatar's
/// URL among them), and only then the image worker deletes the avatar the profile named before. When a step fails the
/// update is undone: a refused avatar stored nothing; a refused profile changed nothing and the new avatar is deleted;
/// a step that makes no progress for the deadline is undone too — the new avatar deleted (its tombstone refuses a late
/// store), or the profile set back first (a command newer than the forward one, which it makes stale). Once the profile
/// names the new avatar the update only goes forward. A compensating or discarding step that stalls is sent again.
public struct ProfileUpdateSaga: SagaMove, Equatable {
    public var record: ProfileUpdateRecord?
    /// Updates change their account through the record itself (its revision).
    public var change: Never?

    /// The transition for `reply` on `update`, at `date`; `sealing` seals the completed update's answer to its requester.
    public static func on(_ reply: Event, update: ProfileUpdateRecord, at date: Date,
                          sealing: (ProfileUpdateRecord) -> String) -> ProfileUpdateSaga {
        switch (reply, update.stage) {
        case (.newAvatarStored(let stored), .storingAvatar):
            var next = update.moved(to: .updatingProfile, at: date)
            next.fields.profileImage = stored.url
            return ProfileUpdateSaga(record: next)
        case (.newAvatarRejected(let rejected), .storingAvatar):
            return ProfileUpdateSaga(record: update.moved(to: .failed, at: date, failure: Failure(rejected.reason, rejected.message)))
        case (.profileUpdateApplied(let applied), .updatingProfile) where applied.revision == update.revision:
            let next = update.newImageId != nil && update.oldImageId != nil ? ProfileUpdateStage.discardingOldAvatar : .completed
            return ProfileUpdateSaga(record: update.moved(to: next, at: date).sealed(by: sealing))
        case (.profileUpdateRejected(let rejected), .updatingProfile):
            return ProfileUpdateSaga(record: update.undone(at: date, failure: Failure(rejected.reason, rejected.message)))
        case (.profileUpdateApplied(let applied), .restoringProfile) where applied.revision == update.revision:
            return ProfileUpdateSaga(record: update.undone(at: date, failure: update.failure))
        case (.profileUpdateRejected, .restoringProfile):
            // Nothing to set back (the profile is gone): the new avatar goes.
            return ProfileUpdateSaga(record: update.undone(at: date, failure: update.failure))
        case (.avatarDiscarded(let discarded), .discardingOldAvatar) where discarded.imageId == update.oldImageId:
            return ProfileUpdateSaga(record: update.moved(to: .completed, at: date))
        case (.avatarDiscarded(let discarded), .discardingNewAvatar) where discarded.imageId == update.newImageId:
            return ProfileUpdateSaga(record: update.moved(to: .failed, at: date))
        default:
            return ProfileUpdateSaga(record: nil)
        }
    }

    /// Why `reply` is not about `update` (another uid, or an image id that is neither of the update's), or nil.
    public static func mismatch(of reply: Event, with update: ProfileUpdateRecord) -> String? {
        let named: (uid: String, imageId: String?)
        switch reply {
        case .newAvatarStored(let reply): named = (reply.uid, reply.imageId)
        case .newAvatarRejected(let reply): named = (reply.uid, reply.imageId)
        case .avatarDiscarded(let reply): named = (reply.uid, reply.imageId)
        case .newAvatarWaiting(let reply), .profileUpdateWaiting(let reply): named = (reply.uid, nil)
        case .profileUpdateApplied(let reply): named = (reply.uid, nil)
        case .profileUpdateRejected(let reply): named = (reply.uid, nil)
        default: return nil
        }
        let images = [update.newImageId, update.oldImageId].compactMap { $0 }
        guard named.uid != update.uid || named.imageId.map({ !images.contains($0) }) == true else { return nil }
        return "\(reply.type) for profile update \(update.requestId) names another uid or image id than the update's"
    }

    /// An update that made no progress for the deadline: undone while the profile is not switched, else (and while it
    /// is being undone) its step sent again with a new revision.
    public static func expire(_ update: ProfileUpdateRecord, at date: Date) -> ProfileUpdateSaga? {
        let failure = Failure(.deadlineExceeded, "The profile update did not finish in time and was undone.")
        switch update.stage {
        case .storingAvatar:
            return ProfileUpdateSaga(record: update.moved(to: .discardingNewAvatar, at: date, failure: failure))
        case .updatingProfile:
            return ProfileUpdateSaga(record: update.moved(to: .restoringProfile, at: date, failure: failure))
        case .discardingOldAvatar, .restoringProfile, .discardingNewAvatar:
            return ProfileUpdateSaga(record: update.moved(to: update.stage, at: date))
        case .completed, .failed:
            return nil
        }
    }

    /// What an update in its stage asks for (published again on redelivery and by the sweep). An update storing its
    /// avatar republishes nothing here: only its request carries the avatar.
    public static func events(of update: ProfileUpdateRecord) -> [Event] {
        let step = update.stage.rawValue
        switch update.stage {
        case .storingAvatar:
            return []
        case .updatingProfile:
            return [.updateProfile(ProfileFieldsUpdate(requestId: update.requestId, uid: update.uid, fields: update.fields, step: step,
                                                       revision: update.revision))]
        case .restoringProfile:
            return [.updateProfile(ProfileFieldsUpdate(requestId: update.requestId, uid: update.uid,
                                                       fields: update.fields.current(in: update.previous), step: step, revision: update.revision))]
        case .discardingOldAvatar, .discardingNewAvatar:
            let imageId = (update.stage == .discardingOldAvatar ? update.oldImageId : update.newImageId) ?? ""
            return [.discardAvatar(DiscardAvatar(requestId: update.requestId, uid: update.uid, imageId: imageId, step: step,
                                                 revision: update.revision))]
        case .completed:
            return [.profileUpdated(ProfileUpdated(requestId: update.requestId, sealedProfile: update.sealedProfile ?? ""))]
        case .failed:
            return [.accountChangeFailed(RequestRefusal(requestId: update.requestId, reason: update.failure?.reason ?? .deadlineExceeded,
                                                        message: update.failure?.message ?? "The profile update failed."))]
        }
    }

    /// The command storing the new avatar of an update at its first stage (from its request, which alone carries it).
    public static func storeNewAvatar(_ update: ProfileUpdateRecord, avatar: AvatarSource) -> Event {
        .storeNewAvatar(StoreNewAvatar(requestId: update.requestId, uid: update.uid, imageId: update.newImageId ?? "", avatar: avatar,
                                       step: update.stage.rawValue, revision: update.revision))
    }

    /// The events of the record as saved.
    public func events(after saved: ProfileUpdateRecord) -> [Event] { Self.events(of: saved) }
}

extension ProfileUpdateRecord {
    /// This record moved to `stage` at `date`, failing with `failure` when given.
    func moved(to stage: ProfileUpdateStage, at date: Date, failure: Failure? = nil) -> ProfileUpdateRecord {
        var next = self
        next.stage = stage
        next.failure = failure ?? self.failure
        next.updatedAt = date
        return next
    }

    /// This record failing with `failure`: its new avatar discarded first, if it has one.
    func undone(at date: Date, failure: Failure?) -> ProfileUpdateRecord {
        moved(to: newImageId == nil ? .failed : .discardingNewAvatar, at: date, failure: failure)
    }

    /// This record with its answer sealed, once (a redelivered reply finds it sealed).
    func sealed(by sealing: (ProfileUpdateRecord) -> String) -> ProfileUpdateRecord {
        var next = self
        next.sealedProfile = sealedProfile ?? sealing(self)
        return next
    }
}
