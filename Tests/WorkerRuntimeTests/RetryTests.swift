import Domain
import Testing
@testable import WorkerRuntime

/// A step failing transiently is retried after the policy's back-off (an injected, instant sleep
/// here) until it succeeds or the attempts run out; a permanent failure is not retried.
@Suite struct RetryTests {
    @Test func aTransientFailureIsRetriedWithBackOffUntilTheStepSucceeds() async throws {
        let bench = try WorkerBench()
        let step = ScriptedStep { event, attempt in
            guard attempt > 2 else { throw StoreError(.transient, "store busy (test)") }
            return ScriptedStep.refusal(of: event)
        }
        let worker = try bench.run(step)
        try await bench.publish(ScriptedStep.request("flaky"))
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "flaky"))
        #expect(step.flows == ["flaky", "flaky", "flaky"])
        let waits = bench.sleeps.withLock { $0 }
        #expect(waits.count == 2, "one back-off before each retry: \(waits)")
        #expect(waits.allSatisfy { $0 > .zero })
        try await worker.stop()
        #expect(try await bench.everything().filter { $0.topic.hasSuffix(".dlq") }.isEmpty)
    }

    @Test func aStepStillFailingAfterTheLastAttemptIsDeadLetteredAsRetriesExhausted() async throws {
        let bench = try WorkerBench()
        let step = ScriptedStep { event, _ in
            guard event.key == "after" else { throw StoreError(.transient, "store down (test)") }
            return ScriptedStep.refusal(of: event)
        }
        let worker = try bench.run(step)
        try await bench.publish(ScriptedStep.request("doomed"))
        try await bench.publish(ScriptedStep.request("after"))
        let letter = try #require(try await bench.message(on: Topic.deadLetters(of: Topic.authRequests), key: "doomed"))
        let attempts = RetryPolicy().maxAttempts
        #expect(letter.text("dlq.reason") == "retries_exhausted")
        #expect(letter.text("dlq.attempts") == String(attempts))
        #expect(letter.text("dlq.error")?.contains("store down (test)") == true)
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "after"), "the worker goes on")
        #expect(step.flows == Array(repeating: "doomed", count: attempts) + ["after"])
        #expect(bench.sleeps.withLock { $0.count } == attempts - 1, "one back-off before each retry")
        try await worker.stop()
        #expect(try await bench.everything().filter { $0.topic == Topic.authOutcomes }.map(\.keyString) == ["after"])
    }

    @Test func aPermanentFailureIsDeadLetteredAsStepFailedWithoutARetry() async throws {
        let bench = try WorkerBench()
        let step = ScriptedStep { _, _ in throw StoreError(.permanent, "refused for good (test)") }
        let worker = try bench.run(step)
        try await bench.publish(ScriptedStep.request("refused"))
        let letter = try #require(try await bench.message(on: Topic.deadLetters(of: Topic.authRequests), key: "refused"))
        #expect(letter.text("dlq.reason") == "step_failed")
        #expect(letter.text("dlq.error") == "refused for good (test)")
        #expect(step.flows == ["refused"])
        #expect(bench.sleeps.withLock { $0.isEmpty })
        try await worker.stop()
    }
}
