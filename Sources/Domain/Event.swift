import Foundation

/// Every message of every flow. On the wire: one JSON object with the event's fields
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
    case codeRequested(CodeRequested)
    case codeSent(CodeSent)
    case codeRefused(CodeRefused)
    case tokenRequested(TokenRequested)
    case tokenIssued(TokenIssued)
    case tokenRefused(RequestRefusal)
    case passwordChangeRequested(PasswordChangeRequested)
    case passwordResetRequested(PasswordResetRequested)
    case emailChangeRequested(EmailChangeRequested)
    case updateProfileEmail(ProfileEmail)
    case profileEmailUpdated(ProfileEmail)
    case profileEmailRejected(ProfileEmailRejected)
    case accountChangeCompleted(AccountChangeCompleted)
    case accountChangeFailed(RequestRefusal)

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
        case .codeRequested: "CodeRequested"
        case .codeSent: "CodeSent"
        case .codeRefused: "CodeRefused"
        case .tokenRequested: "TokenRequested"
        case .tokenIssued: "TokenIssued"
        case .tokenRefused: "TokenRefused"
        case .passwordChangeRequested: "PasswordChangeRequested"
        case .passwordResetRequested: "PasswordResetRequested"
        case .emailChangeRequested: "EmailChangeRequested"
        case .updateProfileEmail: "UpdateProfileEmail"
        case .profileEmailUpdated: "ProfileEmailUpdated"
        case .profileEmailRejected: "ProfileEmailRejected"
        case .accountChangeCompleted: "AccountChangeCompleted"
        case .accountChangeFailed: "AccountChangeFailed"
        }
    }

    /// The flow this event belongs to (registration id or request id); also the message key.
    public var key: String { payload.flowId }

    /// The registration id for events of the registration flow, the request id for others: the same as `key`.
    public var registrationId: String { key }

    /// The topic this event is published to.
    public var topic: String {
        switch self {
        case .registrationRequested: Topic.registrationRequests
        case .storeAvatar, .deleteAvatar: Topic.imageCommands
        case .writeProfile, .deleteProfile: Topic.profileCommands
        case .avatarStored, .avatarRejected, .avatarDeleted, .profileWritten, .profileRejected, .profileDeleted:
            Topic.registrationReplies
        case .registrationCompleted, .registrationFailed: Topic.registrationOutcomes
        case .codeRequested: Topic.codeRequests
        case .codeSent, .codeRefused: Topic.codeOutcomes
        case .tokenRequested: Topic.authRequests
        case .tokenIssued, .tokenRefused: Topic.authOutcomes
        case .passwordChangeRequested, .passwordResetRequested, .emailChangeRequested: Topic.accountRequests
        case .updateProfileEmail: Topic.profileCommands
        case .profileEmailUpdated, .profileEmailRejected: Topic.accountReplies
        case .accountChangeCompleted, .accountChangeFailed: Topic.accountOutcomes
        }
    }
}
