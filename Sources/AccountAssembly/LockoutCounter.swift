import SignIn
import Support

/// `registrar_lockouts_total`: the locks accounts earned, by the kind of failures that earned them.
enum LockoutCounter {
    private static let lockouts = MetricsRegistry.shared.counter(
        "registrar_lockouts_total", "Account locks begun after repeated wrong credentials, by kind (password, code)", labels: ["kind"])

    /// Counts a lock; every kind is exported (at zero) once this is first used.
    static let count: @Sendable (FailureKind) -> Void = {
        for kind in FailureKind.allCases { lockouts.declare(kind.rawValue) }
        return { lockouts.increment($0.rawValue) }
    }()
}
