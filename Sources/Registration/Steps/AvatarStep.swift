import Domain
import Foundation

/// The image worker's step: stores the processed avatar as `ProfileImages/<imageId>.jpg`, or
/// refuses it; deletes it again on compensation.
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

    /// The object key a client stages a large avatar under.
    public static func stagingKey(registrationId: String) -> String { "staging/\(registrationId)" }

    public static let routes = Route.set([Topic.imageCommands: [.storeAvatar, .deleteAvatar]])

    public func handle(_ event: Event) throws -> [Event] {
        switch event {
        case .storeAvatar(let command): return [try store(command)]
        case .deleteAvatar(let command):
            try images.delete(Self.key(imageId: command.imageId))
            return [.avatarDeleted(AvatarDeleted(registrationId: command.registrationId, imageId: command.imageId))]
        default:
            unrouted(event)
        }
    }

    private func store(_ command: StoreAvatar) throws -> Event {
        let key = Self.key(imageId: command.imageId)
        let stored = Event.avatarStored(AvatarStored(registrationId: command.registrationId, imageId: command.imageId,
                                                     url: images.url(for: key)))
        // A redelivered command whose avatar was stored already: answer the same again.
        if try images.contains(key) { return stored }
        let result: Result<[UInt8], Failure>
        switch try original(of: command.avatar) {
        case .failure(let failure): result = .failure(failure)
        case .success(nil): result = .success(imaging.defaultAvatar())
        case .success(let bytes?): result = imaging.process(bytes)
        }
        switch result {
        case .failure(let failure):
            try discardStaged(command.avatar)
            return .avatarRejected(AvatarRejected(registrationId: command.registrationId, imageId: command.imageId,
                                                  reason: failure.reason, message: failure.message))
        case .success(let jpeg):
            do {
                try images.put(jpeg, key: key, contentType: "image/jpeg")
            } catch {
                guard error.kind == .permanent else { throw error }
                return .avatarRejected(AvatarRejected(registrationId: command.registrationId, imageId: command.imageId,
                                                      reason: .imageStoreRejected, message: "The image store refused the avatar: \(error.message)"))
            }
            try discardStaged(command.avatar)
            return stored
        }
    }

    /// The original bytes (nil when none was chosen), or why they cannot be had.
    private func original(of source: AvatarSource?) throws -> Result<[UInt8]?, Failure> {
        switch source {
        case nil:
            return .success(nil)
        case .inline(let base64):
            guard let data = Data(base64Encoded: base64) else {
                return .failure(Failure(.imageNotAnImage, "The inline avatar is not valid base64."))
            }
            return .success(Array(data))
        case .staged(let key, let digest, let size):
            guard let bytes = try images.get(key) else {
                return .failure(Failure(.imageStagingMissing, "The staged avatar \(key) does not exist."))
            }
            guard bytes.count == size, sha256(bytes) == digest.lowercased() else {
                return .failure(Failure(.imageCorrupt, "The staged avatar does not match its size and checksum."))
            }
            return .success(bytes)
        }
    }

    private func discardStaged(_ source: AvatarSource?) throws {
        if case .staged(let key, _, _) = source { try images.delete(key) }
    }
}
