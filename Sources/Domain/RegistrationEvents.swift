import Foundation

/// Published by a client to `registration.requests`. The password and the `register` code mailed to `email`
/// (the proof that the registrant reads the mailbox) are sealed to the account worker's public key (each a
/// ``SealedSecret``, libsodium sealed box, base64): neither travels in plaintext. Without a code the registration
/// fails `code_required`, with a wrong, expired or used one `invalid_credentials`; nothing is created.
/// `replyKey` is the client's X25519 public key (base64), to which the outcome's details are sealed.
@PublicInit
public struct RegistrationRequested: Codable, Sendable, Equatable {
    public var registrationId: String
    public var email: String
    public var name: String
    public var sealedPassword: String
    public var sealedCode: String?
    public var replyKey: String
    public var avatar: AvatarSource?
    public var isMapLocationEnabled: Bool
}

/// Asks the image worker to process and store an avatar (the default image when `avatar` is nil).
@PublicInit
public struct StoreAvatar: SagaCommand, Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String
    public var avatar: AvatarSource?
    public var step: String
    public var revision: Int
}

/// Asks the image worker to delete a stored avatar (compensation).
@PublicInit
public struct DeleteAvatar: SagaCommand, Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String
    public var step: String
    public var revision: Int
}

/// The image worker stored `ProfileImages/<imageId>.jpg`, reachable at `url`.
@PublicInit
public struct AvatarStored: Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String
    public var url: String
}

/// The image worker refused the avatar; nothing was stored.
@PublicInit
public struct AvatarRejected: Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String
    public var reason: ReasonCode
    public var message: String
}

/// What the image worker says of a registration's avatar when nothing more than which avatar: ``AvatarDeleted``,
/// ``AvatarWaiting``.
@PublicInit
public struct AvatarNotice: Codable, Sendable, Equatable {
    public var registrationId: String
    public var imageId: String
}

/// The image worker deleted the avatar (or it was already gone).
public typealias AvatarDeleted = AvatarNotice

/// The image worker is alive but cannot store the avatar yet (its object store is failing) and keeps retrying: a
/// heartbeat that keeps the saga from its deadline while the store is down.
public typealias AvatarWaiting = AvatarNotice

/// Asks the profile worker to write `users/<uid>`.
@PublicInit
public struct WriteProfile: SagaCommand, Codable, Sendable, Equatable {
    public var registrationId: String
    public var uid: String
    public var profile: Profile
    public var step: String
    public var revision: Int
}

/// Asks the profile worker to delete `users/<uid>` (compensation).
@PublicInit
public struct DeleteProfile: SagaCommand, Codable, Sendable, Equatable {
    public var registrationId: String
    public var uid: String
    public var step: String
    public var revision: Int
}

/// What the profile worker says of a registration's profile when nothing more than whose: ``ProfileWritten``,
/// ``ProfileWaiting``, ``ProfileDeleted``.
@PublicInit
public struct ProfileNotice: Codable, Sendable, Equatable {
    public var registrationId: String
    public var uid: String
}

/// The profile worker wrote the profile.
public typealias ProfileWritten = ProfileNotice

/// The profile worker is alive but cannot write the profile yet (its store is failing) and keeps retrying: a
/// heartbeat that keeps the saga from its deadline while the store is down.
public typealias ProfileWaiting = ProfileNotice

/// The profile worker could not write the profile; nothing was written.
@PublicInit
public struct ProfileRejected: Codable, Sendable, Equatable {
    public var registrationId: String
    public var uid: String
    public var reason: ReasonCode
    public var message: String
}

/// The profile worker deleted the profile (or it was already gone).
public typealias ProfileDeleted = ProfileNotice

/// The registration completed: the account is active and the profile complete. `sealedResult` is a
/// ``RegistrationResult`` (JSON) sealed to the request's `replyKey`: no personal data travels in the clear.
@PublicInit
public struct RegistrationCompleted: Codable, Sendable, Equatable {
    public var registrationId: String
    public var sealedResult: String
}

/// What `RegistrationCompleted.sealedResult` opens to: the registration it answers, and the new account's uid and profile.
@PublicInit
public struct RegistrationResult: SealedAnswer, Equatable {
    public static let purpose = AnswerPurpose.registrationResult
    /// The registration id.
    public var requestId: String
    public var uid: String
    public var profile: Profile
}

/// The registration failed; everything it had created was undone.
@PublicInit
public struct RegistrationFailed: Codable, Sendable, Equatable {
    public var registrationId: String
    public var reason: ReasonCode
    public var message: String
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
