extension Event {
    /// The type of an event without its fields: what the `"type"` field says on the wire, and what a `Route` names.
    public enum Kind: String, Sendable, CaseIterable {
        case registrationRequested = "RegistrationRequested"
        case storeAvatar = "StoreAvatar"
        case deleteAvatar = "DeleteAvatar"
        case avatarStored = "AvatarStored"
        case avatarRejected = "AvatarRejected"
        case avatarDeleted = "AvatarDeleted"
        case writeProfile = "WriteProfile"
        case deleteProfile = "DeleteProfile"
        case profileWritten = "ProfileWritten"
        case profileRejected = "ProfileRejected"
        case profileDeleted = "ProfileDeleted"
        case registrationCompleted = "RegistrationCompleted"
        case registrationFailed = "RegistrationFailed"
        case codeRequested = "CodeRequested"
        case codeSent = "CodeSent"
        case codeRefused = "CodeRefused"
        case tokenRequested = "TokenRequested"
        case tokenIssued = "TokenIssued"
        case tokenRefused = "TokenRefused"
        case profileRequested = "ProfileRequested"
        case profileAnswered = "ProfileAnswered"
        case passwordChangeRequested = "PasswordChangeRequested"
        case passwordResetRequested = "PasswordResetRequested"
        case emailChangeRequested = "EmailChangeRequested"
        case updateProfileEmail = "UpdateProfileEmail"
        case profileEmailUpdated = "ProfileEmailUpdated"
        case profileEmailRejected = "ProfileEmailRejected"
        case accountChangeCompleted = "AccountChangeCompleted"
        case accountChangeFailed = "AccountChangeFailed"
        case signOutRequested = "SignOutRequested"
        case signedOut = "SignedOut"
        case sessionsRequested = "SessionsRequested"
        case sessionsAnswered = "SessionsAnswered"
        case exportRequested = "ExportRequested"
        case exportAnswered = "ExportAnswered"

        /// The topic events of this type are published to.
        public var topic: String {
            switch self {
            case .registrationRequested: Topic.registrationRequests
            case .storeAvatar, .deleteAvatar: Topic.imageCommands
            case .writeProfile, .deleteProfile, .updateProfileEmail: Topic.profileCommands
            case .avatarStored, .avatarRejected, .avatarDeleted, .profileWritten, .profileRejected, .profileDeleted:
                Topic.registrationReplies
            case .registrationCompleted, .registrationFailed: Topic.registrationOutcomes
            case .codeRequested: Topic.codeRequests
            case .codeSent, .codeRefused: Topic.codeOutcomes
            case .tokenRequested, .profileRequested, .signOutRequested, .sessionsRequested, .exportRequested: Topic.authRequests
            case .tokenIssued, .tokenRefused, .profileAnswered, .signedOut, .sessionsAnswered, .exportAnswered: Topic.authOutcomes
            case .passwordChangeRequested, .passwordResetRequested, .emailChangeRequested: Topic.accountRequests
            case .profileEmailUpdated, .profileEmailRejected: Topic.accountReplies
            case .accountChangeCompleted, .accountChangeFailed: Topic.accountOutcomes
            }
        }
    }
}
