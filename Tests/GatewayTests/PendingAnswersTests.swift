@testable import Gateway
import HTTPServer
import Synchronization
@testable import TestSupport
import Testing

/// Requests by id, bounded waits, no timeout kept as an answer, and the rate limiter.
@Suite(.tags(.unit)) struct PendingAnswersTests {
    @Test func aRetryOfTheSameRequestJoinsTheFirstWork() async {
        let pending = PendingAnswers()
        let runs = Mutex(0)
        let work: @Sendable () async -> HTTPResponse? = {
            runs.withLock { $0 += 1 }
            return .text(200, "done")
        }
        guard case .answered(let first) = await pending.answer(id: "k", capability: "c", shown: true, within: .seconds(5), work),
              case .answered(let second) = await pending.answer(id: "k", capability: "c", shown: true, within: .seconds(5), work) else {
            Issue.record("not answered")
            return
        }
        #expect(first.body == second.body && runs.withLock { $0 } == 1)
    }

    @Test func aSlowAnswerIsPendingAndFoundLaterOnlyWhereShown() async throws {
        let pending = PendingAnswers()
        let gate = AsyncStream<Void>.makeStream()
        let slow: @Sendable () async -> HTTPResponse? = {
            for await _ in gate.stream { break }
            return .text(200, "late")
        }
        guard case .pending = await pending.answer(id: "s", capability: "cs", shown: true, within: .milliseconds(50), slow),
              case .pending = await pending.answer(id: "t", capability: "ct", shown: false, within: .milliseconds(50), slow) else {
            Issue.record("answered before the work ended")
            return
        }
        guard case .pending? = pending.status(capability: "cs") else { Issue.record("no pending status"); return }
        #expect(pending.status(capability: "s") == nil, "the request id is no capability")
        gate.continuation.yield()
        gate.continuation.finish()
        guard case .answered(let late) = await pending.answer(id: "s", capability: "cs", shown: true, within: .seconds(5), slow) else {
            Issue.record("the late answer was not kept")
            return
        }
        #expect(late.body == Array("late".utf8))
        #expect(pending.status(capability: "ct") == nil && pending.status(capability: "unknown") == nil)
    }

    /// Work that ends without an outcome leaves nothing: the next retry runs it again, and the status URL knows nothing.
    @Test func workWithoutAnAnswerIsForgottenAndTriedAgain() async {
        let pending = PendingAnswers()
        let runs = Mutex(0)
        let work: @Sendable () async -> HTTPResponse? = {
            runs.withLock { $0 += 1 }
            return runs.withLock { $0 } == 1 ? nil : .text(200, "genuine")
        }
        guard case .pending = await pending.answer(id: "n", capability: "cn", shown: true, within: .seconds(5), work) else {
            Issue.record("a missing outcome was answered")
            return
        }
        #expect(pending.status(capability: "cn") == nil && pending.count == 0)
        guard case .answered(let answer) = await pending.answer(id: "n", capability: "cn", shown: true, within: .seconds(5), work) else {
            Issue.record("the retry got no answer")
            return
        }
        #expect(answer.body == Array("genuine".utf8) && runs.withLock { $0 } == 2)
    }

    @Test func answersExpireAfterTheRetention() async throws {
        let pending = PendingAnswers(retention: .milliseconds(100))
        _ = await pending.answer(id: "e", capability: "ce", shown: true, within: .seconds(5)) { .text(200, "x") }
        try await Task.sleep(for: .milliseconds(200))
        _ = await pending.answer(id: "f", capability: "cf", shown: true, within: .seconds(5)) { .text(200, "y") }
        #expect(pending.status(capability: "ce") == nil && pending.count == 1)
    }

    @Test func theLimiterCountsPerKeyAndSaysHowLongToWait() {
        let limiter = RateLimiter("test", limit: 2, per: .seconds(60))
        let now = ContinuousClock.now
        #expect(limiter.admit("a", now: now) == nil && limiter.admit("a", now: now) == nil)
        #expect(limiter.admit("a", now: now + .seconds(10)) == 50)
        #expect(limiter.admit("b", now: now + .seconds(10)) == nil)
        #expect(limiter.admit("a", now: now + .seconds(61)) == nil)
    }

    /// An answer that comes before the wait ends is what the caller gets, never `pending` (the timer loses).
    @Test func anAnswerWithinTheWaitIsNeverReportedPending() async {
        let pending = PendingAnswers()
        for index in 0..<500 {
            guard case .answered = await pending.answer(id: "q\(index)", capability: "c\(index)", shown: true, within: .seconds(30),
                                                        { .text(200, "ok") }) else {
                Issue.record("answer \(index) reported pending")
                return
            }
        }
    }
}
