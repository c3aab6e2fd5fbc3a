extension Event {
    /// The reason code of a failure outcome (`RegistrationFailed`, `CodeRefused`, `TokenRefused`,
    /// `AccountChangeFailed`, `OperatorRefused`); nil for any other event.
    public var refusalReason: ReasonCode? {
        switch self {
        case .registrationFailed(let failure): failure.reason
        case .codeRefused(let refusal): refusal.reason
        case .tokenRefused(let refusal), .accountChangeFailed(let refusal), .operatorRefused(let refusal): refusal.reason
        default: nil
        }
    }
}

extension Event.Kind {
    /// The failure outcomes: the types whose events carry a reason code (`Event.refusalReason`).
    public static let refusals: Set<Event.Kind> = [.registrationFailed, .codeRefused, .tokenRefused, .accountChangeFailed,
                                                          .operatorRefused]
}
