import Support
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct BackoffTests {
    struct Flaky: Error, Equatable {
        var transient: Bool
    }

    let quick = Backoff(attempts: 3, initialDelay: .milliseconds(1), maxDelay: .milliseconds(2))

    @Test func delayDoublesUpToTheCapWithJitterAndStopsGrowingAfterTheLastAttempt() {
        let backoff = Backoff(attempts: 4, initialDelay: .milliseconds(100), maxDelay: .seconds(5))
        for _ in 0..<50 {
            for (attempt, full) in [(1, 100), (2, 200), (3, 400), (4, 800), (9, 800)] {
                let delay = backoff.delay(after: attempt)
                #expect(delay >= .milliseconds(full / 2) && delay <= .milliseconds(full), "attempt \(attempt): \(delay)")
            }
            #expect(Backoff(attempts: 30, initialDelay: .milliseconds(100), maxDelay: .seconds(1)).delay(after: 25) <= .seconds(1))
        }
    }

    @Test func blockingRunRetriesTransientErrorsThenThrowsTheLast() throws {
        var attempts: [Int] = []
        #expect(throws: Flaky(transient: true)) {
            try quick.run(isTransient: { (error: Flaky) in error.transient }) { (attempt) throws(Flaky) in
                attempts.append(attempt)
                throw Flaky(transient: true)
            }
        }
        #expect(attempts == [1, 2, 3])
        let result = try quick.run(isTransient: { (_: Flaky) in true }) { (attempt) throws(Flaky) in
            guard attempt == 2 else { throw Flaky(transient: true) }
            return "second"
        }
        #expect(result == "second")
    }

    @Test func blockingRunThrowsAPermanentErrorAtOnce() {
        var calls = 0
        #expect(throws: Flaky(transient: false)) {
            try quick.run(isTransient: { (error: Flaky) in error.transient }) { (_) throws(Flaky) in
                calls += 1
                throw Flaky(transient: false)
            }
        }
        #expect(calls == 1)
    }

    @Test func asyncRunTellsEachRetryPausesAndGivesUpAfterTheLastAttempt() async {
        let slow = Backoff(attempts: 3, initialDelay: .seconds(10), maxDelay: .seconds(30))
        var retries: [Int] = []
        var pauses: [Duration] = []
        await #expect(throws: Flaky(transient: true)) {
            try await slow.run(isTransient: { (error: Flaky) in error.transient },
                               willRetry: { _, attempt in retries.append(attempt) },
                               sleep: { pauses.append($0) }) { _ in throw Flaky(transient: true) }
        }
        #expect(retries == [1, 2])
        #expect(pauses.count == 2)
        #expect(pauses.first.map { $0 >= .seconds(5) && $0 <= .seconds(10) } == true)
        #expect(pauses.last.map { $0 >= .seconds(10) && $0 <= .seconds(20) } == true)
    }

    @Test func asyncRunThrowsOtherErrorsAtOnce() async {
        struct Other: Error {}
        var calls = 0
        await #expect(throws: Other.self) {
            try await quick.run(isTransient: { (_: Flaky) in true }) { _ in
                calls += 1
                throw Other()
            }
        }
        #expect(calls == 1)
    }

    @Test func unlimitedRunRetriesPastTheAttempts() async throws {
        let result = try await quick.run(limited: false, isTransient: { (_: Flaky) in true }) { attempt in
            guard attempt == 10 else { throw Flaky(transient: true) }
            return attempt
        }
        #expect(result == 10)
    }
}

@Suite(.tags(.unit)) struct DurationConversionTests {
    @Test func convertsToSecondsAndMilliseconds() {
        #expect(Duration.milliseconds(1500).timeInterval == 1.5)
        #expect(Duration.microseconds(2_999).milliseconds == 2)
        #expect(Duration.seconds(3).milliseconds == 3000)
        #expect(Duration.seconds(-1).timeoutMilliseconds == 0)
        #expect(Duration.seconds(Int64.max / 1000).timeoutMilliseconds == Int32.max)
    }
}
