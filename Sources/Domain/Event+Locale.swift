extension Event {
    /// The `locale` a client's request names for the mails it causes, if any.
    public var locale: String? {
        switch self {
        case .codeRequested(let request): request.locale
        case .passwordChangeRequested(let request): request.locale
        case .passwordResetRequested(let request): request.locale
        case .emailChangeRequested(let request): request.locale
        case .signOutRequested(let request): request.locale
        case .accountDeletionRequested(let request): request.locale
        case .operatorRequested(let request): request.locale
        default: nil
        }
    }
}
