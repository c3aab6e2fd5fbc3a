/// The routing table of the topic contract: the event types each step takes, on the topic each arrives on.
/// Each step's `routes` is its entry here; the topics workers consume (`Topic.inputs`) are this table's topics.
public enum StepRoutes {
    /// `RegistrationCoordinator` (account worker): the requests, and the image and profile workers' replies.
    public static let registration = Route.set([
        Topic.registrationRequests: [.registrationRequested],
        Topic.registrationReplies: [.avatarStored, .avatarRejected, .avatarDeleted, .avatarWaiting, .profileWritten, .profileRejected,
                                    .profileDeleted, .profileWaiting],
    ])
    /// `AvatarStep` (image worker).
    public static let avatar = Route.set([Topic.imageCommands: [.storeAvatar, .deleteAvatar, .eraseAvatar, .storeNewAvatar, .discardAvatar]])
    /// `ProfileStep` (profile worker).
    public static let profile = Route.set([Topic.profileCommands: [.writeProfile, .deleteProfile, .eraseProfile]])
    /// `ProfileEmailStep` (profile worker).
    public static let profileEmail = Route.set([Topic.profileCommands: [.updateProfileEmail]])
    /// `ProfileFieldsStep` (profile worker).
    public static let profileFields = Route.set([Topic.profileCommands: [.updateProfile]])
    /// `CodeDispatchStep` (code dispatch worker).
    public static let codeDispatch = Route.set([Topic.codeRequests: [.codeRequested]])
    /// `SignInStep` (account worker): token requests, and the outcomes of the registrations sign-ins started.
    public static let signIn = Route.set([
        Topic.authRequests: [.tokenRequested],
        Topic.registrationOutcomes: [.registrationCompleted, .registrationFailed],
    ])
    /// `ProfileReadStep` (account worker): a verified access token's profile.
    public static let profileRead = Route.set([Topic.authRequests: [.profileRequested]])
    /// `SessionStep` (account worker): sign-out, revocation and the list of sessions.
    public static let sessions = Route.set([Topic.authRequests: [.signOutRequested, .sessionsRequested]])
    /// `ExportStep` (account worker): a copy of an account's data.
    public static let export = Route.set([Topic.authRequests: [.exportRequested]])
    /// `AccountChangeStep` (account worker): the requests, and the profile worker's replies to an email change.
    public static let accountChange = Route.set([
        Topic.accountRequests: [.passwordChangeRequested, .passwordResetRequested, .emailChangeRequested],
        Topic.accountReplies: [.profileEmailUpdated, .profileEmailRejected, .profileEmailWaiting],
    ])
    /// `DeletionStep` (account worker): the deletion requests, and the image and profile workers' replies to them.
    public static let deletion = Route.set([
        Topic.accountRequests: [.accountDeletionRequested],
        Topic.accountReplies: [.avatarErased, .profileErased],
    ])
    /// `ProfileUpdateStep` (account worker): the update requests, and the image and profile workers' replies to them.
    public static let profileUpdate = Route.set([
        Topic.accountRequests: [.profileUpdateRequested],
        Topic.accountReplies: [.newAvatarStored, .newAvatarRejected, .newAvatarWaiting, .avatarDiscarded, .profileUpdateApplied,
                               .profileUpdateRejected, .profileUpdateWaiting],
    ])

    /// `OperatorStep` (account worker): the operator's requests.
    public static let operatorActions = Route.set([Topic.operatorRequests: [.operatorRequested]])

    /// Every step's routes.
    public static let all: Set<Route> = registration.union(avatar).union(profile).union(profileEmail).union(codeDispatch)
        .union(signIn).union(profileRead).union(sessions).union(export).union(accountChange).union(deletion).union(profileFields)
        .union(profileUpdate).union(operatorActions)
}
