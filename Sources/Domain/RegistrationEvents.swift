import Foundation

/// Published by a client to `registration.requests`. The password and the `register` code mailed to `email`
/// (the proof that the registrant reads the mailbox) are sealed to the account worker's public key (each a
/// ``SealedSecret``, libsodium sealed box, base64): neither travels in plaintext. Without a code the registration
/// fails `code_required`, with a wrong, expired or used one `invalid_credentials`; nothing is created.
/// `replyKey` is the client's X25519 public key (base64), to which the outcome's details are sealed.
public struct RegistrationRequested: Codable, Sendable, Equatable {
    public var registrationId: String
    public var email: String
    public var name: String
    public var sealedPassword: String
    public var sealedCode: String?
    public var replyKey: String
    public var avatar: AvatarSource?
    public var isMapLocationEnabled: Bool

    public init(registrationId: String, email: String, name: String, sealedPassword: String, sealedCode: String?, replyKey: String,
                avatar: AvatarSource?, isMapLocationEnabled: Bool) {
        self.registrationId = registrationId
        self.email = email
        self.name = name
        self.sealedPassword = sealedPassword
        self.sealedCode = sealedCode
        self.replyKey = replyKey
        self.avatar = avatar
        self.isMapLocationEnabled = isMapLocationEnabled
    }
}

/// Asks the image worker to process and store an avatar (the default image when `avatar` is nil).
public struct StoreAvatar: SagaCommand, Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String
    public var avatar: AvatarSource?
    public var step: String
    public var revision: Int

    public init(registrationId: String, imageId: String, avatar: AvatarSource?, step: String, revision: Int) {
        self.registrationId = registrationId
        self.imageId = imageId
        self.avatar = avatar
        self.step = step
        self.revision = revision
    }
}

/// Asks the image worker to delete a stored avatar (compensation).
public struct DeleteAvatar: SagaCommand, Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String
    public var step: String
    public var revision: Int

    public init(registrationId: String, imageId: String, step: String, revision: Int) {
        self.registrationId = registrationId
        self.imageId = imageId
        self.step = step
        self.revision = revision
    }
}

/// The image worker stored `ProfileImages/<imageId>.jpg`, reachable at `url`.
public struct AvatarStored: Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String
    public var url: String

    public init(registrationId: String, imageId: String, url: String) {
        self.registrationId = registrationId
        self.imageId = imageId
        self.url = url
    }
}

/// The image worker refused the avatar; nothing was stored.
public struct AvatarRejected: Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String
    public var reason: ReasonCode
    public var message: String

    public init(registrationId: String, imageId: String, reason: ReasonCode, message: String) {
        self.registrationId = registrationId
        self.imageId = imageId
        self.reason = reason
        self.message = message
    }
}

/// What the image worker says of a registration's avatar when nothing more than which avatar: ``AvatarDeleted``,
/// ``AvatarWaiting``.
public struct AvatarNotice: Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String

    public init(registrationId: String, imageId: String) {
        self.registrationId = registrationId
        self.imageId = imageId
    }
}

/// The image worker deleted the avatar (or it was already gone).
public typealias AvatarDeleted = AvatarNotice

/// The image worker is alive but cannot store the avatar yet (its object store is failing) and keeps retrying: a
/// heartbeat that keeps the saga from its deadline while the store is down.
public typealias AvatarWaiting = AvatarNotice

/// Asks the profile worker to write `users/<uid>`.
public struct WriteProfile: SagaCommand, Codable, Sendable, Equatable {
    public var registrationId: String
    public var uid: String
    public var profile: Profile
    public var step: String
    public var revision: Int

    public init(registrationId: String, uid: String, profile: Profile, step: String, revision: Int) {
        self.registrationId = registrationId
        self.uid = uid
        self.profile = profile
        self.step = step
        self.revision = revision
    }
}

/// Asks the profile worker to delete `users/<uid>` (compensation).
public struct DeleteProfile: SagaCommand, Codable, Sendable, Equatable {
    public var registrationId: String
    public var uid: String
    public var step: String
    public var revision: Int

    public init(registrationId: String, uid: String, step: String, revision: Int) {
        self.registrationId = registrationId
        self.uid = uid
        self.step = step
        self.revision = revision
    }
}

/// What the profile worker says of a registration's profile when nothing more than whose: ``ProfileWritten``,
/// ``ProfileWaiting``, ``ProfileDeleted``.
public struct ProfileNotice: Codable, Sendable, Equatable {
    public var registrationId: String
    public var uid: String

    public init(registrationId: String, uid: String) {
        self.registrationId = registrationId
        self.uid = uid
    }
}

/// The profile worker wrote the profile.
public typealias ProfileWritten = ProfileNotice

/// The profile worker is alive but cannot write the profile yet (its store is failing) and keeps retrying: a
/// heartbeat that keeps the saga from its deadline while the store is down.
public typealias ProfileWaiting = ProfileNotice

/// The profile worker could not write the profile; nothing was written.
public struct ProfileRejected: Codable, Sendable, Equatable {
    public var registrationId: String
    public var uid: String
    public var reason: ReasonCode
    public var message: String

    public init(registrationId: String, uid: String, reason: ReasonCode, message: String) {
        self.registrationId = registrationId
        self.uid = uid
        self.reason = reason
        self.message = message
    }
}

/// The profile worker deleted the profile (or it was already gone).
public typealias ProfileDeleted = ProfileNotice

/// The registration completed: the account is active and the profile complete. `sealedResult` is a
/// ``RegistrationResult`` (JSON) sealed to the request's `replyKey`: no personal data travels in the clear.
public struct RegistrationCompleted: Codable, Sendable, Equatable {
    public var registrationId: String
    public var sealedResult: String

    public init(registrationId: String, sealedResult: String) {
        self.registrationId = registrationId
        self.sealedResult = sealedResult
    }
}

/// What `RegistrationCompleted.sealedResult` opens to: the registration it answers, and the new account's uid and profile.
public struct RegistrationResult: SealedAnswer, Equatable {
    public static let purpose = AnswerPurpose.registrationResult
    /// The registration id.
    public var requestId: String
    public var purpose: AnswerPurpose
    public var uid: String
    public var profile: Profile

    /// The JSON that is sealed (keys sorted).
    public var encoded: String { sealedJSON }

    public init(registrationId: String, uid: String, profile: Profile) {
        requestId = registrationId
        purpose = Self.purpose
        self.uid = uid
        self.profile = profile
    }
}

/// The registration failed; everything it had created was undone.
public struct RegistrationFailed: Codable, Sendable, Equatable {
    public var registrationId: String
    public var reason: ReasonCode
    public var message: String

    public init(registrationId: String, reason: ReasonCode, message: String) {
        self.registrationId = registrationId
        self.reason = reason
        self.message = message
    }
}

/// What every event of the registration flow has: the id of its registration.
public protocol RegistrationMessage: FlowMessage {
    var registrationId: String { get }
}

extension RegistrationRequested: RegistrationMessage {}
extension StoreAvatar: RegistrationMessage {}
extension DeleteAvatar: RegistrationMessage {}
extension AvatarStored: RegistrationMessage {}
extension AvatarRejected: RegistrationMessage {}
extension AvatarNotice: RegistrationMessage {}
extension WriteProfile: RegistrationMessage {}
extension DeleteProfile: RegistrationMessage {}
extension ProfileNotice: RegistrationMessage {}
extension ProfileRejected: RegistrationMessage {}
extension RegistrationCompleted: RegistrationMessage {}
extension RegistrationFailed: RegistrationMessage {}
