import Synchronization

/// Says what a long run is waiting for: every `interval`, each wait that has lasted longer than that, by its name
/// and what is still outstanding, so that a stall is never silent.
public final class WaitWatch: Sendable {
    private struct Wait {
        var name: String
        var since: ContinuousClock.Instant
        var outstanding: @Sendable () -> String?
    }

    public let interval: Duration
    private let say: @Sendable (String) -> Void
    private let waits = Mutex<(next: Int, open: [Int: Wait])>((0, [:]))

    /// - Parameter say: Where each line goes (e.g. printed and flushed).
    public init(interval: Duration = .seconds(30), say: @escaping @Sendable (String) -> Void) {
        self.interval = interval
        self.say = say
    }

    /// Runs `body` as a wait named `name` (e.g. "the outcomes of 212 registrations"); `outstanding` says what it
    /// still waits for when asked (e.g. "12 missing: …"), nil for nothing more to say.
    public func waiting<T>(for name: String, outstanding: @escaping @Sendable () -> String? = { nil },
                           isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        let id = waits.withLock { waits in
            waits.next += 1
            waits.open[waits.next] = Wait(name: name, since: .now, outstanding: outstanding)
            return waits.next
        }
        defer { waits.withLock { _ = $0.open.removeValue(forKey: id) } }
        return try await body()
    }

    /// The waits begun more than `interval` before `now`, oldest first, each as a line.
    public func overdue(at now: ContinuousClock.Instant = .now) -> [String] {
        let open = waits.withLock { $0.open.values.filter { now - $0.since > interval }.sorted { $0.since < $1.since } }
        return open.map { wait in
            let seconds = (now - wait.since).components.seconds
            return "still waiting after \(seconds) s for \(wait.name)" + (wait.outstanding().map { ": \($0)" } ?? "")
        }
    }

    /// Says the overdue waits every `interval`, until the task is cancelled.
    public func report() async {
        while (try? await Task.sleep(for: interval)) != nil {
            overdue().forEach(say)
        }
    }
}
