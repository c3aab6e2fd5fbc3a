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
    case avatarWaiting(AvatarWaiting)
    case writeProfile(WriteProfile)
    case deleteProfile(DeleteProfile)
    case profileWritten(ProfileWritten)
    case profileRejected(ProfileRejected)
    case profileDeleted(ProfileDeleted)
    case profileWaiting(ProfileWaiting)
    case registrationCompleted(RegistrationCompleted)
    case registrationFailed(RegistrationFailed)
    case codeRequested(CodeRequested)
    case codeSent(CodeSent)
    case codeRefused(CodeRefused)
    case tokenRequested(TokenRequested)
    case tokenIssued(TokenIssued)
    case tokenRefused(RequestRefusal)
    case profileRequested(BearerRequest)
    case profileAnswered(ProfileAnswered)
    case passwordChangeRequested(PasswordChangeRequested)
    case passwordResetRequested(PasswordResetRequested)
    case emailChangeRequested(EmailChangeRequested)
    case updateProfileEmail(ProfileEmail)
    case profileEmailUpdated(ProfileEmail)
    case profileEmailRejected(ProfileEmailRejected)
    case profileEmailWaiting(ProfileEmailWaiting)
    case accountChangeCompleted(AccountChangeCompleted)
    case accountChangeFailed(RequestRefusal)
    case signOutRequested(SignOutRequested)
    case signedOut(SignedOut)
    case sessionsRequested(BearerRequest)
    case sessionsAnswered(SessionsAnswered)
    case exportRequested(BearerRequest)
    case exportAnswered(ExportAnswered)
    case accountDeletionRequested(AccountDeletionRequested)
    case eraseAvatar(EraseAvatar)
    case avatarErased(AvatarErased)
    case eraseProfile(EraseProfile)
    case profileErased(ProfileErased)
    case accountDeleted(AccountDeleted)
    case profileUpdateRequested(ProfileUpdateRequested)
    case storeNewAvatar(StoreNewAvatar)
    case newAvatarStored(NewAvatarStored)
    case newAvatarRejected(NewAvatarRejected)
    case newAvatarWaiting(ProfileUpdateWaiting)
    case discardAvatar(DiscardAvatar)
    case avatarDiscarded(AvatarDiscarded)
    case updateProfile(ProfileFieldsUpdate)
    case profileUpdateApplied(ProfileFieldsUpdate)
    case profileUpdateRejected(ProfileUpdateRejected)
    case profileUpdateWaiting(ProfileUpdateWaiting)
    case profileUpdated(ProfileUpdated)
    case operatorRequested(OperatorRequested)
    case operatorAnswered(OperatorAnswered)
    case operatorRefused(RequestRefusal)

    /// The schema version this build writes and reads.
    public static let version = 1

    /// The `"type"` written on the wire.
    public var type: String { kind.rawValue }

    /// The event's type, without its fields.
    public var kind: Kind {
        switch self {
        case .registrationRequested: .registrationRequested
        case .storeAvatar: .storeAvatar
        case .deleteAvatar: .deleteAvatar
        case .avatarStored: .avatarStored
        case .avatarRejected: .avatarRejected
        case .avatarDeleted: .avatarDeleted
        case .avatarWaiting: .avatarWaiting
        case .writeProfile: .writeProfile
        case .deleteProfile: .deleteProfile
        case .profileWritten: .profileWritten
        case .profileRejected: .profileRejected
        case .profileDeleted: .profileDeleted
        case .profileWaiting: .profileWaiting
        case .registrationCompleted: .registrationCompleted
        case .registrationFailed: .registrationFailed
        case .codeRequested: .codeRequested
        case .codeSent: .codeSent
        case .codeRefused: .codeRefused
        case .tokenRequested: .tokenRequested
        case .tokenIssued: .tokenIssued
        case .tokenRefused: .tokenRefused
        case .profileRequested: .profileRequested
        case .profileAnswered: .profileAnswered
        case .passwordChangeRequested: .passwordChangeRequested
        case .passwordResetRequested: .passwordResetRequested
        case .emailChangeRequested: .emailChangeRequested
        case .updateProfileEmail: .updateProfileEmail
        case .profileEmailUpdated: .profileEmailUpdated
        case .profileEmailRejected: .profileEmailRejected
        case .profileEmailWaiting: .profileEmailWaiting
        case .accountChangeCompleted: .accountChangeCompleted
        case .accountChangeFailed: .accountChangeFailed
        case .signOutRequested: .signOutRequested
        case .signedOut: .signedOut
        case .sessionsRequested: .sessionsRequested
        case .sessionsAnswered: .sessionsAnswered
        case .exportRequested: .exportRequested
        case .exportAnswered: .exportAnswered
        case .accountDeletionRequested: .accountDeletionRequested
        case .eraseAvatar: .eraseAvatar
        case .avatarErased: .avatarErased
        case .eraseProfile: .eraseProfile
        case .profileErased: .profileErased
        case .accountDeleted: .accountDeleted
        case .profileUpdateRequested: .profileUpdateRequested
        case .storeNewAvatar: .storeNewAvatar
        case .newAvatarStored: .newAvatarStored
        case .newAvatarRejected: .newAvatarRejected
        case .newAvatarWaiting: .newAvatarWaiting
        case .discardAvatar: .discardAvatar
        case .avatarDiscarded: .avatarDiscarded
        case .updateProfile: .updateProfile
        case .profileUpdateApplied: .profileUpdateApplied
        case .profileUpdateRejected: .profileUpdateRejected
        case .profileUpdateWaiting: .profileUpdateWaiting
        case .profileUpdated: .profileUpdated
        case .operatorRequested: .operatorRequested
        case .operatorAnswered: .operatorAnswered
        case .operatorRefused: .operatorRefused
        }
    }

    /// The flow this event belongs to (registration id or request id); also the message key.
    public var key: String { payload.flowId }

    /// The registration id for events of the registration flow, the request id for others: the same as `key`.
    public var registrationId: String { key }

    /// The topic this event is published to.
    public var topic: String { kind.topic }
}
