import Domain
import Foundation

/// Where a profile update stands. Forward: the new avatar stored, the profile switched to it, the old avatar discarded.
/// Back (compensation): the profile set back, the new avatar discarded.
public enum ProfileUpdateStage: String, Codable, Sendable, CaseIterable {
    /// The image worker is storing the new avatar.
    case storingAvatar = "storing_avatar"
    /// The profile worker is setting the new fields (and the new avatar's URL).
    case updatingProfile = "updating_profile"
    /// The profile names the new avatar; the image worker is deleting the one it replaced.
    case discardingOldAvatar = "discarding_old_avatar"
    /// The profile did not answer in time: the profile worker is setting the fields back as they were.
    case restoringProfile = "restoring_profile"
    /// The update failed: the image worker is deleting the new avatar.
    case discardingNewAvatar = "discarding_new_avatar"
    /// Terminal: the profile is the updated one, and names the only avatar the account has.
    case completed
    /// Terminal: the profile is as it was, and no new avatar remains.
    case failed

    /// The stages that wait for a worker's reply: an update in one of them is in flight (one per account at a time).
    public static let waiting: Set<ProfileUpdateStage> = [.storingAvatar, .updatingProfile, .discardingOldAvatar, .restoringProfile,
                                                          .discardingNewAvatar]
    /// The stages where the profile names the update's new avatar.
    public static let switched: Set<ProfileUpdateStage> = [.discardingOldAvatar, .completed]
}

/// The account worker's record of one profile update, keyed by its request id.
public struct ProfileUpdateRecord: Sendable, Equatable {
    public var requestId: String
    public var uid: String
    /// What the update sets; `profileImage` is the new avatar's URL once it is stored.
    public var fields: ProfileFields
    /// The profile before the update: what a compensation sets back, and what the fields are applied to in the answer.
    public var previous: Profile
    /// The new avatar (`ProfileImages/<newImageId>.jpg`); nil when the update keeps the avatar.
    public var newImageId: String?
    /// The avatar the profile named before (discarded once the new one is in place); nil when none is known.
    public var oldImageId: String?
    /// The requester's X25519 public key, to which the answer is sealed.
    public var replyKey: String
    /// The answer's ``ProfileView``, sealed once to `replyKey` when the update completed (republished byte for byte).
    public var sealedProfile: String?
    public var stage: ProfileUpdateStage
    public var failure: Failure?
    /// The account revision the command of its stage carries (``SagaCommand``); every save takes the account's next one.
    public var revision: Int
    public var updatedAt: Date

    public init(requestId: String, uid: String, fields: ProfileFields, previous: Profile, newImageId: String?, oldImageId: String?,
                replyKey: String, sealedProfile: String? = nil, stage: ProfileUpdateStage, failure: Failure? = nil, revision: Int = 0,
                updatedAt: Date) {
        self.requestId = requestId
        self.uid = uid
        self.fields = fields
        self.previous = previous
        self.newImageId = newImageId
        self.oldImageId = oldImageId
        self.replyKey = replyKey
        self.sealedProfile = sealedProfile
        self.stage = stage
        self.failure = failure
        self.revision = revision
        self.updatedAt = updatedAt
    }

    /// The profile once the update is applied.
    public var profile: Profile { fields.applied(to: previous) }
}

/// The result of beginning a profile update.
public enum ProfileUpdateStart: Sendable, Equatable {
    /// The record as stored: with the account's next revision and the avatar the profile names now as `oldImageId`.
    case started(ProfileUpdateRecord)
    /// An update with this request id exists (a redelivered request); nothing was written.
    case existing(ProfileUpdateRecord)
    /// Another update of the account's profile is in flight; nothing was written.
    case inFlight
    /// The account is not active (deleting, or gone); nothing was written.
    case notActive
}

/// Accounts with their profile updates, in one store so that an update's step and its account revision commit together.
public protocol ProfileUpdateStore: AccountChangeStore {
    func profileUpdate(requestId: String) throws(StoreError) -> ProfileUpdateRecord?
    /// Atomically, if the account `record.uid` is active, still at `revision` (nothing moved it since its profile was read:
    /// a transient error otherwise, and the request is tried again) and has no update in flight: inserts `record` with the
    /// account's next revision and, as its `oldImageId`, the avatar its latest completed update stored (else the one given:
    /// the registration's).
    func begin(_ record: ProfileUpdateRecord, atRevision revision: Int) throws(StoreError) -> ProfileUpdateStart
    /// Atomically replaces the stored record, which takes the account's next revision, and keeps `effects` in the
    /// side-effect outbox. Returns the record as stored.
    func save(_ record: ProfileUpdateRecord, keeping effects: [OutboxMessage]) throws(StoreError) -> ProfileUpdateRecord
    /// Profile updates in one of `stages` last updated before `date`.
    func profileUpdates(in stages: Set<ProfileUpdateStage>, updatedBefore date: Date) throws(StoreError) -> [ProfileUpdateRecord]
    /// The avatar the profile of `account` names: the one its latest switched update stored, else its registration's.
    func avatar(of account: Account) throws(StoreError) -> String?
    /// The profile updates of the account `uid`, oldest first (its export).
    func profileUpdates(uid: String) throws(StoreError) -> [ProfileUpdateRecord]
}

extension ProfileUpdateStore {
    /// Saves `record`, keeping no side effect (`save(_:keeping:)`).
    public func save(_ record: ProfileUpdateRecord) throws(StoreError) -> ProfileUpdateRecord { try save(record, keeping: []) }
}
