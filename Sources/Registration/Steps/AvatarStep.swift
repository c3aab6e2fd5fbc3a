import Accounts
import Domain
import Foundation

/// The image worker's step: stores the processed avatar as `ProfileImages/<imageId>.jpg` (a registration's, or a profile
/// update's new one), or refuses it; deletes it again on compensation, a profile update, or an account's deletion, leaving a tombstone (``tombstoneKey(imageId:)``), so that a
/// command older than the deletion is refused as stale and nothing compensation removed comes back.
public struct AvatarStep: EventHandler {
    public var images: any ObjectStore
    public var imaging: any AvatarImaging
    /// SHA-256 (lower-case hex) of bytes, to check staged uploads against their claim check.
    public var sha256: @Sendable ([UInt8]) -> String

    public init(images: any ObjectStore, imaging: any AvatarImaging, sha256: @escaping @Sendable ([UInt8]) -> String) {
        self.images = images
        self.imaging = imaging
        self.sha256 = sha256
    }

    /// The object key of an avatar.
    public static func key(imageId: String) -> String { "ProfileImages/\(imageId).jpg" }

    /// The object key a client stages a registration's large avatar under (``StagedUploads``).
    public static func stagingKey(registrationId: String) -> String { StagedUploads.key(registrationId: registrationId) }

    /// The object key a client stages a profile update's large avatar under (``StagedUploads``).
    public static func stagingKey(profileUpdateId: String) -> String { StagedUploads.key(profileUpdateId: profileUpdateId) }

    /// Where staged uploads are, which the sweep clears.
    static let stagingPrefixes = [stagingKey(registrationId: ""), stagingKey(profileUpdateId: "")]

    public static let routes = StepRoutes.avatar

    /// The object recording that the avatar `imageId` was deleted, and by which command revision: its record, kept
    /// once the avatar is gone, so that no older command stores it again (``SagaCommand``).
    public static func tombstoneKey(imageId: String) -> String { "tombstones/ProfileImages/\(imageId)" }

    public func handle(_ event: Event) throws -> [Event] {
        switch event {
        case .storeAvatar(let command):
            if command.isStale(against: try deletedRevision(imageId: command.imageId)) { throw UntrustedEvent.stale(event, command, than: "the avatar") }
            switch try store(imageId: command.imageId, command.avatar, stagedAt: Self.stagingKey(registrationId: command.registrationId)) {
            case .success(let url): return [.avatarStored(AvatarStored(registrationId: command.registrationId, imageId: command.imageId, url: url))]
            case .failure(let failure):
                return [.avatarRejected(AvatarRejected(registrationId: command.registrationId, imageId: command.imageId, reason: failure.reason,
                                                       message: failure.message))]
            }
        case .storeNewAvatar(let command):
            if command.isStale(against: try deletedRevision(imageId: command.imageId)) { throw UntrustedEvent.stale(event, command, than: "the avatar") }
            switch try store(imageId: command.imageId, command.avatar, stagedAt: Self.stagingKey(profileUpdateId: command.requestId)) {
            case .success(let url): return [.newAvatarStored(NewAvatarStored(requestId: command.requestId, uid: command.uid, imageId: command.imageId, url: url))]
            case .failure(let failure):
                return [.newAvatarRejected(NewAvatarRejected(requestId: command.requestId, uid: command.uid, imageId: command.imageId,
                                                             reason: failure.reason, message: failure.message))]
            }
        case .discardAvatar(let command):
            try delete(imageId: command.imageId, by: command, event)
            return [.avatarDiscarded(AvatarDiscarded(requestId: command.requestId, uid: command.uid, imageId: command.imageId))]
        case .deleteAvatar(let command):
            try delete(imageId: command.imageId, by: command, event)
            return [.avatarDeleted(AvatarDeleted(registrationId: command.registrationId, imageId: command.imageId))]
        case .eraseAvatar(let command):
            try delete(imageId: command.imageId, by: command, event)
            return [.avatarErased(AvatarErased(requestId: command.requestId, uid: command.uid, imageId: command.imageId))]
        default:
            unrouted(event)
        }
    }

    /// While the object store fails, a stored avatar's saga hears that the image worker is alive and retrying.
    public func heartbeat(of event: Event) -> [Event] {
        switch event {
        case .storeAvatar(let command): [.avatarWaiting(AvatarWaiting(registrationId: command.registrationId, imageId: command.imageId))]
        case .storeNewAvatar(let command):
            [.newAvatarWaiting(ProfileUpdateWaiting(requestId: command.requestId, uid: command.uid, step: command.step))]
        default: []
        }
    }

    /// Deletes the avatar `imageId` for `command` (a registration's compensation, an account's deletion), leaving its
    /// tombstone; a command older than the last deletion's is refused as stale.
    private func delete(imageId: String, by command: some SagaCommand, _ event: Event) throws {
        if command.isStale(against: try deletedRevision(imageId: imageId)) { throw UntrustedEvent.stale(event, command, than: "the avatar") }
        // The record first: a crash between the two leaves the avatar to the redelivery, never a store after it.
        try images.put(Array(String(command.revision).utf8), key: Self.tombstoneKey(imageId: imageId), contentType: "text/plain")
        try images.delete(Self.key(imageId: imageId))
    }

    /// The revision of the command that deleted the avatar `imageId`, if one did.
    private func deletedRevision(imageId: String) throws(StoreError) -> Int? {
        try images.get(Self.tombstoneKey(imageId: imageId)).flatMap { Int(String(decoding: $0, as: UTF8.self)) }
    }

    /// Stores the avatar `imageId` processed from `source` (the default image when nil), whose staged original can only be
    /// at `staging`; its URL, or why it is refused (nothing stored).
    private func store(imageId: String, _ source: AvatarSource?, stagedAt staging: String) throws -> Result<String, Failure> {
        let key = Self.key(imageId: imageId)
        // A redelivered command whose avatar was stored already: answer the same again.
        if try images.contains(key) { return .success(images.url(for: key)) }
        let result: Result<[UInt8], Failure>
        switch try original(of: source, stagedAt: staging) {
        case .failure(let failure): result = .failure(failure)
        case .success(nil): result = .success(imaging.defaultAvatar())
        case .success(let bytes?): result = imaging.process(bytes)
        }
        switch result {
        case .failure(let failure):
            try discardStaged(source, at: staging)
            return .failure(failure)
        case .success(let jpeg):
            do {
                try images.put(jpeg, key: key, contentType: "image/jpeg")
            } catch {
                guard error.kind == .permanent else { throw error }
                return .failure(Failure(.imageStoreRejected, "The image store refused the avatar: \(error.message)"))
            }
            try discardStaged(source, at: staging)
            return .success(images.url(for: key))
        }
    }

    /// The original bytes (nil when none was chosen), or why they cannot be had. A staged original is
    /// read only from the request's own staging key `staged`, and only once its stored size is the claimed
    /// one and within the avatar limit.
    private func original(of source: AvatarSource?, stagedAt staged: String) throws -> Result<[UInt8]?, Failure> {
        switch source {
        case nil:
            return .success(nil)
        case .inline(let base64):
            guard let data = Data(base64Encoded: base64) else {
                return .failure(Failure(.imageNotAnImage, "The inline avatar is not valid base64."))
            }
            return .success(Array(data))
        case .staged(let key, let digest, let size):
            guard key == staged else {
                // The client's key is not repeated: it may hold anything (a NUL PostgreSQL cannot store).
                return .failure(Failure(.imageStagingMissing, "A staged avatar must be at \(staged), its request's own key."))
            }
            guard let stored = try images.size(of: staged) else {
                return .failure(Failure(.imageStagingMissing, "The staged avatar \(staged) does not exist."))
            }
            guard stored <= ContractLimits.avatarBytes else {
                return .failure(Failure(.imageTooLarge, "The staged avatar is larger than \(ContractLimits.avatarBytes) bytes."))
            }
            // Read no more than the size checked: an object grown since is caught by its length, never read whole.
            guard stored == size, let bytes = try images.prefix(of: staged, length: size + 1), bytes.count == size,
                  sha256(bytes) == digest.lowercased() else {
                return .failure(Failure(.imageCorrupt, "The staged avatar does not match its size and checksum."))
            }
            return .success(bytes)
        }
    }

    /// Deletes the staged uploads last changed before `cutoff` (the periodic sweep): those of registrations refused
    /// before they started, or whose clients gave up, which no step will read. Returns how many.
    @discardableResult
    public func sweepStaged(changedBefore cutoff: Date) throws -> Int {
        let stale = try Self.stagingPrefixes.flatMap { try images.list(prefix: $0) }.filter { $0.modifiedAt < cutoff }
        for object in stale { try images.delete(object.key) }
        return stale.count
    }

    /// Deletes the request's staged upload, which is only ever at its own staging key.
    private func discardStaged(_ source: AvatarSource?, at staged: String) throws {
        if case .staged(let key, _, _) = source, key == staged { try images.delete(staged) }
    }
}
