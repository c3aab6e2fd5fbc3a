import Foundation

/// Every message of the registration flow. On the wire: one JSON object with the event's fields
/// plus `"type"` (the case name, e.g. `"AvatarStored"`) and `"version"` (the schema version).
public enum Event: Sendable, Equatable {
    case registrationRequested(RegistrationRequested)
    case storeAvatar(StoreAvatar)
    case deleteAvatar(DeleteAvatar)
    case avatarStored(AvatarStored)
    case avatarRejected(AvatarRejected)
    case avatarDeleted(AvatarDeleted)
    case writeProfile(WriteProfile)
    case deleteProfile(DeleteProfile)
    case profileWritten(ProfileWritten)
    case profileRejected(ProfileRejected)
    case profileDeleted(ProfileDeleted)
    case registrationCompleted(RegistrationCompleted)
    case registrationFailed(RegistrationFailed)

    /// The schema version this build writes and reads.
    public static let version = 1

    /// The `"type"` written on the wire.
    public var type: String {
        switch self {
        case .registrationRequested: "RegistrationRequested"
        case .storeAvatar: "StoreAvatar"
        case .deleteAvatar: "DeleteAvatar"
        case .avatarStored: "AvatarStored"
        case .avatarRejected: "AvatarRejected"
        case .avatarDeleted: "AvatarDeleted"
        case .writeProfile: "WriteProfile"
        case .deleteProfile: "DeleteProfile"
        case .profileWritten: "ProfileWritten"
        case .profileRejected: "ProfileRejected"
        case .profileDeleted: "ProfileDeleted"
        case .registrationCompleted: "RegistrationCompleted"
        case .registrationFailed: "RegistrationFailed"
        }
    }

    /// The registration this event belongs to; also the message key.
    public var registrationId: String { payload.registrationId }

    /// The topic this event is published to.
    public var topic: String {
        switch self {
        case .registrationRequested: Topic.registrationRequests
        case .storeAvatar, .deleteAvatar: Topic.imageCommands
        case .writeProfile, .deleteProfile: Topic.profileCommands
        case .avatarStored, .avatarRejected, .avatarDeleted, .profileWritten, .profileRejected, .profileDeleted:
            Topic.registrationReplies
        case .registrationCompleted, .registrationFailed: Topic.registrationOutcomes
        }
    }
}
