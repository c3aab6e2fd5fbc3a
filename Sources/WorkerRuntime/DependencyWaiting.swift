import Synchronization

/// Work whose waits for a failing dependency readiness reports (`/readyz`): a partition's lane, or the periodic
/// work. Either may be the one that meets the failure while the other waits behind it without failing (for the one
/// connection of a locked SQLite database, say), so each reports its own.
protocol DependencyWaiting: Sendable {
    /// The work is waiting for a retry (true, `because` of a dependency's error) or is being done again (false).
    func setRetrying(_ retrying: Bool, because failure: String?)
}

/// The periodic work's wait for a failing dependency (the stuck-saga sweep's, say), while it waits.
final class PeriodicWait: DependencyWaiting {
    private let waitedOut = Mutex<String?>(nil)

    func setRetrying(_ retrying: Bool, because failure: String?) {
        waitedOut.withLock { $0 = retrying ? failure : nil }
    }

    /// The error the periodic work is waiting out, while it waits.
    var dependencyFailure: String? { waitedOut.withLock { $0 } }
}
