/// A kind of worker as a signer of events: each role has its own event signing key, and a route on
/// an internal topic takes events signed by the roles that produce them only (``Route/producers``).
public enum WorkerRole: String, Sendable, CaseIterable, Comparable {
    case account
    case image
    case profile
    case codeDispatch = "code-dispatch"

    public static func < (lhs: WorkerRole, rhs: WorkerRole) -> Bool { lhs.rawValue < rhs.rawValue }
}
