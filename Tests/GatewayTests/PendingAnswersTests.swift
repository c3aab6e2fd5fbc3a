@testable import Gateway
import HTTPServer
import Synchronization
@testable import TestSupport
import Testing

/// Idempotency keys, bounded waits and the rate limiter.
@Suite(.tags(.unit)) struct PendingAnswersTests {
    @Test func aRetryWithTheSameKeyAndBodyJoinsTheFirstWorkAndAnotherBodyConflicts() async {
        let pending = PendingAnswers()
        let runs = Mutex(0)
        let work: @Sendable () async -> HTTPResponse = {
            runs.withLock { $0 += 1 }
            return .text(200, "done")
        }
        guard case .answered(let first) = await pending.answer(key: "k", id: "k", digest: [1], shown: true, within: .seconds(5), work),
              case .answered(let second) = await pending.answer(key: "k", id: "k", digest: [1], shown: true, within: .seconds(5), work) else {
            Issue.record("not answered")
            return
        }
        #expect(first.body == second.body && runs.withLock { $0 } == 1)
        guard case .conflict = await pending.answer(key: "k", id: "k", digest: [2], shown: true, within: .seconds(5), work) else {
            Issue.record("a different body under the same key was not refused")
            return
        }
    }

    @Test func aSlowAnswerIsPendingAndFoundLaterOnlyWhereShown() async throws {
        let pending = PendingAnswers()
        let gate = AsyncStream<Void>.makeStream()
        let slow: @Sendable () async -> HTTPResponse = {
            for await _ in gate.stream { break }
            return .text(200, "late")
        }
        guard case .pending = await pending.answer(key: "s", id: "s", digest: [], shown: true, within: .milliseconds(50), slow),
              case .pending = await pending.answer(key: "t", id: "t", digest: [], shown: false, within: .milliseconds(50), slow) else {
            Issue.record("answered before the work ended")
            return
        }
        guard case .pending? = pending.status(of: "s") else { Issue.record("no pending status"); return }
        gate.continuation.yield()
        gate.continuation.finish()
        guard case .answered(let late) = await pending.answer(key: "s", id: "s", digest: [], shown: true, within: .seconds(5), slow) else {
            Issue.record("the late answer was not kept")
            return
        }
        #expect(late.body == Array("late".utf8))
        #expect(pending.status(of: "t") == nil && pending.status(of: "unknown") == nil)
    }

    @Test func theLimiterCountsPerKeyAndSaysHowLongToWait() {
        let limiter = RateLimiter("test", limit: 2, per: .seconds(60))
        let now = ContinuousClock.now
        #expect(limiter.admit("a", now: now) == nil && limiter.admit("a", now: now) == nil)
        #expect(limiter.admit("a", now: now + .seconds(10)) == 50)
        #expect(limiter.admit("b", now: now + .seconds(10)) == nil)
        #expect(limiter.admit("a", now: now + .seconds(61)) == nil)
    }
}

extension PendingAnswersTests {
    /// An answer that comes before the wait ends is what the caller gets, never `pending` (the timer loses).
    @Test func anAnswerWithinTheWaitIsNeverReportedPending() async {
        let pending = PendingAnswers()
        for index in 0..<500 {
            guard case .answered = await pending.answer(key: "q\(index)", id: "q\(index)", digest: [], shown: true, within: .seconds(30), { .text(200, "ok") }) else {
                Issue.record("answer \(index) reported pending")
                return
            }
        }
    }
}
