/// A signer of events: each worker kind has its own role and event signing key, and a route on an internal topic
/// takes events signed by the roles that produce them only (``Route/producers``). The `operator` role is no worker: it
/// signs the operator's requests (`registrar operator`), which only the account worker takes.
public enum WorkerRole: String, Sendable, CaseIterable, Comparable {
    case account
    case image
    case profile
    case codeDispatch = "code-dispatch"
    case `operator`

    /// The roles a worker process holds: every role but the operator's.
    public static let workers = allCases.filter { $0 != .operator }

    public static func < (lhs: WorkerRole, rhs: WorkerRole) -> Bool { lhs.rawValue < rhs.rawValue }
}
