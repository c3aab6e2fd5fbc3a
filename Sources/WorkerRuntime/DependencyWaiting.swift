import Synchronization

/// Work whose waits for a failing dependency readiness reports (`/readyz`): a partition's lane, the periodic
/// work, the outbox relay. Either may be the one that meets the failure while the other waits behind it without failing (for the one
/// connection of a locked SQLite database, say), so each reports its own.
protocol DependencyWaiting: Sendable {
    /// The work is waiting for a retry (true, `because` of a dependency's error) or is being done again (false).
    func setRetrying(_ retrying: Bool, because failure: String?)
}

/// The wait for a failing dependency of work beside the consumer — the periodic work (the stuck-saga sweep's, say), the
/// outbox relay — while it waits.
final class PeriodicWait: DependencyWaiting {
    /// What readiness calls the work: "the periodic work", "the outbox relay".
    let name: String
    private let waitedOut = Mutex<String?>(nil)

    init(_ name: String) {
        self.name = name
    }

    func setRetrying(_ retrying: Bool, because failure: String?) {
        waitedOut.withLock { $0 = retrying ? failure : nil }
    }

    /// The error the work is waiting out, while it waits.
    var dependencyFailure: String? { waitedOut.withLock { $0 } }
}
