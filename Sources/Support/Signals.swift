import Dispatch
import Foundation
import Synchronization

/// Turns SIGTERM and SIGINT into an async event for graceful shutdown; a second signal exits at once.
/// Every waiter is woken, however many there are and whenever they start waiting (after the signal too).
public final class ShutdownSignal: @unchecked Sendable {
    // `sources` is written once in `init` and only kept alive afterwards; `waiters` guards its state.
    private let sources: [any DispatchSourceSignal]
    private let waiters = Waiters()

    /// Starts watching `signals`. Keep the instance alive while the process runs.
    public init(signals: [Int32] = [SIGTERM, SIGINT]) {
        let received = Mutex(0)
        let waiters = self.waiters
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let count = received.withLock { count in
                    count += 1
                    return count
                }
                if count > 1 { Foundation.exit(128 + number) }
                waiters.fire(signal: number)
            }
            source.resume()
            return source
        }
    }

    /// Asks for the shutdown from within the process, as a signal would (e.g. an in-process worker's owner).
    public func trigger() {
        waiters.fire()
    }

    /// The number of the signal that arrived first; nil before one does, or when only `trigger` fired.
    public var signalNumber: Int32? { waiters.state.withLock { $0.signal } }

    /// Whether the signal (or `trigger`) has arrived.
    public var hasFired: Bool { waiters.state.withLock { $0.fired } }

    /// Returns when the first signal (or `trigger`) arrives, at once if it has already, or when the task is cancelled.
    public func wait() async {
        let id = waiters.state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = waiters.state.withLock { state in
                    guard !state.fired, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            waiters.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Sleeps for `duration`, returning early (false) when the signal arrives first; true when the time ran out.
    public func sleep(for duration: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.wait(); return false }
            group.addTask { (try? await Task.sleep(for: duration)) != nil }
            let first = await group.next() ?? false
            group.cancelAll()
            return first && !hasFired
        }
    }
}

/// The tasks waiting for a `ShutdownSignal`, each resumed once when it fires.
private final class Waiters: Sendable {
    struct State {
        var fired = false
        var signal: Int32?
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    let state = Mutex(State())

    func fire(signal: Int32? = nil) {
        let waiting = state.withLock { state in
            if !state.fired { state.signal = signal }
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiting { waiter.resume() }
    }
}
