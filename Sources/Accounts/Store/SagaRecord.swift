import Domain
import Foundation

/// Where a registration saga stands.
public enum SagaStage: String, Codable, Sendable, CaseIterable {
    /// The pending account exists; the image worker is storing the avatar.
    case awaitingAvatar = "awaiting_avatar"
    /// The avatar is stored; the profile worker is writing the profile.
    case awaitingProfile = "awaiting_profile"
    /// A later step failed, or the deadline passed; the stored avatar is being deleted, and the saga fails once the
    /// image worker confirms it.
    case compensating
    /// Account active, profile complete. Terminal.
    case completed
    /// Everything created was undone (or nothing was created). Terminal.
    case failed

    /// Whether the saga has its outcome.
    public var isTerminal: Bool { self == .completed || self == .failed }

    /// The stages that wait for a worker's reply, which the deadline sweep undoes, or sends again when it is the undo's
    /// (`SagaTransition.expire`).
    public static let waiting: Set<SagaStage> = [.awaitingAvatar, .awaitingProfile, .compensating]
}

/// The account worker's record of one registration: the saga's state.
public struct SagaRecord: Sendable, Equatable {
    public var registrationId: String
    public var uid: String
    public var email: String
    public var name: String
    public var isMapLocationEnabled: Bool
    public var imageId: String
    public var imageURL: String?
    /// The requester's reply key, to which the completed outcome's details are sealed.
    public var replyKey: String
    /// The completed outcome's ``RegistrationResult``, sealed to `replyKey` once (republished byte for byte).
    public var sealedResult: String?
    public var stage: SagaStage
    public var failure: Failure?
    /// Incremented by every save; guards against two writers moving one saga.
    public var version: Int
    public var startedAt: Date
    public var updatedAt: Date

    public init(registrationId: String, uid: String, email: String, name: String, isMapLocationEnabled: Bool,
                imageId: String, imageURL: String? = nil, replyKey: String = "", sealedResult: String? = nil, stage: SagaStage,
                failure: Failure? = nil, version: Int = 1, startedAt: Date, updatedAt: Date) {
        self.registrationId = registrationId
        self.uid = uid
        self.email = email
        self.name = name
        self.isMapLocationEnabled = isMapLocationEnabled
        self.imageId = imageId
        self.imageURL = imageURL
        self.replyKey = replyKey
        self.sealedResult = sealedResult
        self.stage = stage
        self.failure = failure
        self.version = version
        self.startedAt = startedAt
        self.updatedAt = updatedAt
    }

    /// The profile this registration writes, once the avatar's URL is known.
    public var profile: Profile {
        Profile(name: name, email: email, profileImage: imageURL ?? "", isMapLocationEnabled: isMapLocationEnabled)
    }

    /// What its completed outcome tells the requester.
    public var result: RegistrationResult { RegistrationResult(requestId: registrationId, uid: uid, profile: profile) }
}
