import Domain
import Support
import Synchronization
@testable import TestSupport
import Testing
@testable import WorkerRuntime

/// A step failing transiently is retried after the policy's back-off (an injected, instant sleep
/// here) until it succeeds, however long that takes; a permanent failure is not retried.
@Suite(.tags(.kafka)) struct RetryTests {
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

    /// A dependency down for longer than any retry budget is waited for, the pauses capped, and the
    /// message is handled once it is back: never dead-lettered for running out of attempts.
    @Test func aStepFailingTransientlyIsRetriedForAsLongAsItFails() async throws {
        let bench = try WorkerBench()
        let outage = 40
        let step = ScriptedStep { event, attempt in
            guard event.key == "after" || attempt > outage else { throw StoreError(.transient, "store down (test)") }
            return ScriptedStep.refusal(of: event)
        }
        let worker = try bench.run(step)
        try await bench.publish(ScriptedStep.request("waited"))
        try await bench.publish(ScriptedStep.request("after"))
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "after"))
        #expect(step.flows == Array(repeating: "waited", count: outage + 1) + ["after"], "the partition waits, in order")
        let waits = bench.sleeps.withLock { $0 }
        #expect(waits.count == outage, "one back-off before each retry")
        #expect(waits.allSatisfy { $0 > .zero && $0 <= Backoff.worker.maxDelay })
        #expect(waits.suffix(10).allSatisfy { $0 >= Backoff.worker.maxDelay / 2 }, "the pauses reach the cap: \(waits.suffix(10))")
        try await worker.stop()
        let published = try await bench.everything()
        #expect(published.filter { $0.topic.hasSuffix(".dlq") }.isEmpty)
        #expect(published.filter { $0.topic == Topic.authOutcomes }.map(\.keyString) == ["waited", "after"])
    }

    /// A worker asked to stop while a dependency is still down stops (leaving the message uncommitted).
    @Test func aWorkerWaitingForADependencyStopsWhenAsked() async throws {
        let bench = try WorkerBench()
        let step = ScriptedStep { _, _ in throw StoreError(.transient, "store down for good (test)") }
        let worker = try bench.run(step, grace: .milliseconds(100)) { _ in try await Task.sleep(for: .milliseconds(5)) }
        try await bench.publish(ScriptedStep.request("stuck"))
        while step.flows.count < 3 { try await Task.sleep(for: .milliseconds(20)) }
        try await worker.stop()
        #expect(try await bench.everything().filter { $0.topic.hasSuffix(".dlq") || $0.topic == Topic.authOutcomes }.isEmpty)
    }

    /// The periodic work (the stuck-saga sweep) failing, transiently or for good, never stops the worker.
    @Test func failingPeriodicWorkIsRetriedAndNeverStopsTheWorker() async throws {
        let bench = try WorkerBench()
        let runs = Mutex(0)
        let periodic: @Sendable () throws -> [Event] = {
            let run = runs.withLock { $0 += 1; return $0 }
            switch run {
            case 1...3: throw StoreError(.transient, "store down (test)")
            case 4: throw StoreError(.permanent, "refused for good (test)")
            case 5: return ScriptedStep.refusal(of: ScriptedStep.request("swept"))
            default: return []
            }
        }
        let sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: min($0, .milliseconds(10))) }
        let worker = try bench.run(ScriptedStep(), sleep: sleep, periodic: periodic, every: .milliseconds(10))
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "swept"), "the periodic work goes on after failing")
        try await bench.publish(ScriptedStep.request("after"))
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "after"), "and so does the worker")
        try await worker.stop()
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
