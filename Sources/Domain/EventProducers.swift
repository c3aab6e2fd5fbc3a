extension Event.Kind {
    /// The worker roles that publish events of this type; none for a client's request, which carries
    /// no signature (the public request topics take only requests, see the routing tables).
    public var producers: Set<WorkerRole> {
        switch self {
        case .registrationRequested, .codeRequested, .tokenRequested, .profileRequested, .passwordChangeRequested, .passwordResetRequested,
             .emailChangeRequested, .signOutRequested, .sessionsRequested, .exportRequested:
            []
        case .storeAvatar, .deleteAvatar, .writeProfile, .deleteProfile, .updateProfileEmail, .registrationCompleted,
             .registrationFailed, .tokenIssued, .tokenRefused, .profileAnswered, .accountChangeCompleted, .accountChangeFailed,
             .signedOut, .sessionsAnswered, .exportAnswered:
            [.account]
        case .avatarStored, .avatarRejected, .avatarDeleted:
            [.image]
        case .profileWritten, .profileRejected, .profileDeleted, .profileEmailUpdated, .profileEmailRejected:
            [.profile]
        case .codeSent, .codeRefused:
            [.codeDispatch]
        }
    }
}

extension WorkerRole {
    /// The roles whose events answer public requests on the outcome topics: the public event keys a client (the
    /// gateway, the CLI) checks outcomes with.
    public static let outcomeProducers: Set<WorkerRole> = Set(
        Event.Kind.allCases.filter { Topic.outcomes.contains($0.topic) }.flatMap(\.producers))
}

extension Route {
    /// The worker roles whose signed events this route takes: a message for it must carry a valid
    /// signature by a key of one of them, else it is dead-lettered `unauthenticated`. Empty for a
    /// client's request on a public request topic, which needs no signature.
    public var producers: Set<WorkerRole> { type.producers }
}

extension RoutingTable {
    /// The roles whose public event keys a worker with this table needs: the producers of its routes.
    public var producers: Set<WorkerRole> { Set(routes.flatMap(\.producers)) }
}
