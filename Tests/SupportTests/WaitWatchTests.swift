import Support
import Synchronization
@testable import TestSupport
import Testing

/// `WaitWatch`: a wait that lasts longer than the interval is said, by its name and what it still waits for.
@Suite(.tags(.unit)) struct WaitWatchTests {
    /// A wait held open until `release` finishes, begun before this returns.
    private func held(_ watch: WaitWatch, _ name: String, outstanding: @escaping @Sendable () -> String? = { nil })
        async -> (task: Task<Void, Never>, release: AsyncStream<Void>.Continuation) {
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let (begun, begin) = AsyncStream.makeStream(of: Void.self)
        let task = Task {
            await watch.waiting(for: name, outstanding: outstanding) {
                begin.finish()
                for await _ in released {}
            }
        }
        for await _ in begun {}
        return (task, release)
    }

    @Test func aWaitIsSaidOnceOverdueWithWhatIsOutstandingAndNoLongerOnceOver() async {
        let watch = WaitWatch(interval: .seconds(30)) { _ in }
        let missing = Mutex(["chaos-7", "chaos-9"])
        let before = ContinuousClock.now
        let wait = await held(watch, "the outcomes of 3 registrations") { "\(missing.withLock { $0.count }) missing: " + missing.withLock { $0 }.joined(separator: ", ") }
        let later = ContinuousClock.now + .seconds(95)
        #expect(watch.overdue(at: .now).isEmpty)
        #expect(Self.said(watch.overdue(at: later), between: later - before, for: "the outcomes of 3 registrations: 2 missing: chaos-7, chaos-9"))
        _ = missing.withLock { $0.removeFirst() }
        #expect(Self.said(watch.overdue(at: later), between: later - before, for: "the outcomes of 3 registrations: 1 missing: chaos-9"))
        wait.release.finish()
        await wait.task.value
        #expect(watch.overdue(at: later).isEmpty)
    }

    /// Whether `lines` is the one line of a wait overdue by 95 s up to `longest` (the wait began between the
    /// test's two readings of the clock, however slowly a loaded machine ran between them).
    private static func said(_ lines: [String], between longest: Duration, for rest: String) -> Bool {
        (95...max(95, longest.components.seconds)).contains { lines == ["still waiting after \($0) s for \(rest)"] }
    }

    @Test func nestedWaitsAreSaidOldestFirst() async {
        let watch = WaitWatch(interval: .seconds(30)) { _ in }
        let outer = await held(watch, "the first half's outcomes")
        try? await Task.sleep(for: .milliseconds(20))
        let inner = await held(watch, "a read of registration.outcomes")
        let lines = watch.overdue(at: .now + .seconds(40))
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix("for the first half's outcomes") == true)
        #expect(lines.last?.hasSuffix("for a read of registration.outcomes") == true)
        for wait in [inner, outer] {
            wait.release.finish()
            await wait.task.value
        }
    }

    @Test func reportSaysTheOverdueWaitsUntilCancelled() async throws {
        let said = Mutex<[String]>([])
        let watch = WaitWatch(interval: .milliseconds(20)) { line in said.withLock { $0.append(line) } }
        let reporter = Task { await watch.report() }
        let wait = await held(watch, "a fault to heal")
        let deadline = ContinuousClock.now + .seconds(30)
        while said.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(said.withLock { $0.first }?.contains("for a fault to heal") == true)
        reporter.cancel()
        await reporter.value
        wait.release.finish()
        await wait.task.value
    }
}
