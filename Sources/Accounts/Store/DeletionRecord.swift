import Domain
import Foundation

/// Where an account deletion stands. It only ever moves forward: once begun, a deletion is never undone.
public enum DeletionStage: String, Codable, Sendable, CaseIterable {
    /// The account is `deleting` (no sign-in, every session ended); the image worker is erasing the avatar.
    case erasingAvatar = "erasing_avatar"
    /// The avatar is gone; the profile worker is erasing the profile.
    case erasingProfile = "erasing_profile"
    /// Terminal: the account and every row naming it are gone; the record keeps only the request id and the uid.
    case completed

    /// The stages that wait for a worker's reply, which the deadline sweep moves on by sending their command again.
    public static let waiting: Set<DeletionStage> = [.erasingAvatar, .erasingProfile]
}

/// The account worker's record of one account deletion, keyed by its request id.
public struct DeletionRecord: Sendable, Equatable {
    public var requestId: String
    public var uid: String
    /// The account's address while the deletion runs (its notice is mailed there); empty once completed.
    public var email: String
    /// The avatar to erase (`ProfileImages/<imageId>.jpg`); nil for an account that never had one stored.
    public var imageId: String?
    public var stage: DeletionStage
    /// The account revision the command of its stage carries (``SagaCommand``).
    public var revision: Int
    public var updatedAt: Date

    public init(requestId: String, uid: String, email: String, imageId: String?, stage: DeletionStage, revision: Int = 0, updatedAt: Date) {
        self.requestId = requestId
        self.uid = uid
        self.email = email
        self.imageId = imageId
        self.stage = stage
        self.revision = revision
        self.updatedAt = updatedAt
    }
}

/// The result of beginning an account deletion.
public enum DeletionStart: Sendable, Equatable {
    /// The record as stored (with the revision its command carries); the account is `deleting`.
    case started(DeletionRecord)
    /// A deletion with this request id exists (a redelivered request); nothing was written.
    case existing(DeletionRecord)
    /// The account is not active (already deleting, or gone); nothing was written.
    case notActive
    /// An update of the account's profile is in flight (its avatar not yet settled) or an email change (its profile not yet
    /// following); nothing was written.
    case profileUpdateInFlight
}

/// Accounts with their deletion records, in one store so that a deletion's step and its account change commit together.
public protocol DeletionStore: ProfileUpdateStore {
    func deletion(requestId: String) throws(StoreError) -> DeletionRecord?
    /// Atomically, if the account `record.uid` is active (or disabled) and no update of its profile is in flight: inserts `record` with
    /// the account's next revision (and, as the avatar to erase, the one its latest completed profile update stored, if
    /// any), marks the account `deleting`, ends its sessions at `cutoff` (``Account/notBefore``) and keeps `event` (an
    /// operator's order), if any, in the account outbox.
    func begin(_ record: DeletionRecord, endingSessionsAt cutoff: Date, announcing event: AccountEvent?) throws(StoreError) -> DeletionStart
    /// Atomically replaces the stored record (one that sends a command takes the account's next revision as its
    /// `revision`, also when it sends its stage's command again: newer than any command of another saga meanwhile); a
    /// `completed` record erases, in the same transaction, the account `record.uid` and every row naming it: its
    /// registration's details, account changes and failure counts; `effects` are kept in the side-effect outbox.
    /// Returns the record as stored.
    func save(_ record: DeletionRecord, keeping effects: [OutboxMessage]) throws(StoreError) -> DeletionRecord
    /// Deletions in one of `stages` last updated before `date` (stuck sagas).
    func deletions(in stages: Set<DeletionStage>, updatedBefore date: Date) throws(StoreError) -> [DeletionRecord]
}

extension DeletionStore {
    /// Saves `record`, keeping no side effect (`save(_:keeping:)`).
    public func save(_ record: DeletionRecord) throws(StoreError) -> DeletionRecord { try save(record, keeping: []) }
}
