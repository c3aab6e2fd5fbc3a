import Domain
import Foundation
import Support
import Synchronization

/// What a process is waiting for before it can start serving: said on `/readyz` (503) and in the log while it
/// lasts. A process started during an outage of its database, object store, mail server, broker or disk waits
/// there, alive (`/healthz` 200), and starts serving once the dependency is back: no exit, no restart loop.
public final class StartupState: Sendable {
    private let reason = Mutex<String?>("starting")

    public init() {}

    /// Why the process is not serving yet; nil once it has started.
    public var waitingFor: String? { reason.withLock { $0 } }

    /// Records what the process waits for now.
    public func waiting(_ what: String) { reason.withLock { $0 = what } }

    /// The process has opened what it needs.
    public func started() { reason.withLock { $0 = nil } }
}

/// Opens what a process needs at start, waiting out the outage of a dependency.
public enum StartupWait {
    /// Pauses between attempts: doubling from 200 ms up to 5 s, then 5 s (half to all of it) each.
    public static let retry = Backoff(attempts: 6, initialDelay: .milliseconds(200), maxDelay: .seconds(5))

    /// Runs `open` until it succeeds, for as long as it fails because a dependency is unavailable (`isOutage`),
    /// recording each failure in `state` and the log; any other error is thrown at once (a configuration the
    /// operator must fix). Returns nil when `shutdown` fires first.
    public static func open<T>(_ what: String, until shutdown: ShutdownSignal, state: StartupState, logger: Logger,
                               retry: Backoff = retry, _ open: () throws -> T) async throws -> T? {
        var attempt = 1
        while !shutdown.hasFired {
            do {
                return try open()
            } catch where isOutage(error) {
                let pause = retry.delay(after: attempt)
                let reason = "waiting for \(what): \(describe(error))"
                state.waiting(reason)
                // The first failure and then one a minute, not one per attempt.
                if attempt == 1 || attempt.isMultiple(of: 12) {
                    logger.warning("cannot start yet: a dependency is unavailable; waiting and retrying",
                                   ["waiting_for": what, "attempt": attempt, "error": describe(error)])
                }
                guard await shutdown.sleep(for: pause) else { return nil }
                attempt += 1
            }
        }
        return nil
    }

    /// Whether `error` says a dependency is unavailable (and may come back), rather than that the configuration
    /// is wrong: a store failing transiently (down, unreachable, locked, full, read-only), or a file that could
    /// not be written or read because of the disk (full, read-only, failing, immutable).
    public static func isOutage(_ error: any Error) -> Bool {
        switch error {
        case let error as StoreError:
            return error.kind == .transient
        case let error as CocoaError:
            return [.fileWriteOutOfSpace, .fileWriteVolumeReadOnly, .fileWriteNoPermission, .fileWriteUnknown, .fileReadUnknown]
                .contains(error.code)
        case let error as POSIXError:
            return [.ENOSPC, .EROFS, .EIO, .EDQUOT, .EPERM, .EAGAIN, .EBUSY].contains(error.code)
        default:
            return false
        }
    }

    private static func describe(_ error: any Error) -> String { String(describing: error) }
}
