import Curl
import Foundation

/// What the test process stops when it exits, in order: first the systems (workers running in this process or as
/// processes, which use the servers and the C libraries), then the servers. A shared system is never stopped by a
/// test, so its workers go on (an image worker's sweep lists its S3 bucket every 100 ms) until the exit handlers run.
///
/// One exit handler runs the sequence, registered once libcurl (and with it OpenSSL) is set up: exit handlers run
/// in the reverse order of their registration, so it runs before OpenSSL's own clean-up, and nothing calls into a
/// cleaned-up library (a worker's request to S3 after that clean-up dies of SIGSEGV, failing a run whose tests passed).
enum ExitSequence {
    enum Stage: CaseIterable {
        /// Systems whose workers use the servers: stopped first.
        case systems
        /// Servers, stopped once nothing uses them.
        case servers
    }

    /// Calls `stop` at `stage` when the process exits, unless `owner` is forgotten first (`forget`).
    static func add(_ owner: AnyObject, at stage: Stage, _ stop: @escaping () -> Void) {
        _ = registration
        handlers.add(ObjectIdentifier(owner), stage, stop)
    }

    static func forget(_ owner: AnyObject) {
        handlers.remove(ObjectIdentifier(owner))
    }

    /// Runs `stop` on the cooperative threads while this thread waits, at most `limit`: exit handlers cannot
    /// await. A stop that does not finish in time is said on standard error, and the exit goes on.
    static func waitFor(_ what: String, limit: Duration = .seconds(60), _ stop: @escaping @Sendable () async -> Void) {
        let stopped = DispatchSemaphore(value: 0)
        Task {
            await stop()
            stopped.signal()
        }
        if stopped.wait(timeout: .now() + limit.timeInterval) == .timedOut {
            FileHandle.standardError.write(Data("exit: \(what) did not stop within \(limit)\n".utf8))
        }
    }

    private static let handlers = Handlers()

    private static let registration: Void = {
        CurlHandle.setUpLibrary()
        atexit { ExitSequence.handlers.runAll() }
    }()

    private final class Handlers: @unchecked Sendable {
        // Guarded by `lock`.
        private let lock = NSLock()
        private var handlers: [ObjectIdentifier: (stage: Stage, stop: () -> Void)] = [:]

        func add(_ owner: ObjectIdentifier, _ stage: Stage, _ stop: @escaping () -> Void) {
            lock.withLock { handlers[owner] = (stage, stop) }
        }

        func remove(_ owner: ObjectIdentifier) {
            lock.withLock { _ = handlers.removeValue(forKey: owner) }
        }

        func runAll() {
            let all = lock.withLock { handlers.values }
            for stage in Stage.allCases {
                for handler in all where handler.stage == stage { handler.stop() }
            }
        }
    }
}

/// Stops the server `owner` when the process exits (after the systems), unless it is forgotten first (`forgetAtExit`).
func stopAtExit(_ owner: AnyObject, _ stop: @escaping () -> Void) {
    ExitSequence.add(owner, at: .servers, stop)
}

func forgetAtExit(_ owner: AnyObject) {
    ExitSequence.forget(owner)
}
