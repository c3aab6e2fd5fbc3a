import Dispatch
import Domain
@testable import TestSupport
import Testing
@testable import WorkerRuntime

/// On shutdown the worker stops taking messages, finishes the one in hand (publishing its answer and
/// committing it) within the grace period, and leaves the rest to whoever takes the partition next.
@Suite(.tags(.kafka)) struct ShutdownTests {
    @Test func shutdownFinishesTheMessageInHandAndLeavesTheRestUncommitted() async throws {
        let bench = try WorkerBench()
        let grace = Duration.seconds(60)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let release = DispatchSemaphore(value: 0)
        // Blocks on the first message until the worker, stopping, starts waiting out its grace period.
        let first = ScriptedStep { event, _ in
            startedContinuation.yield()
            release.wait()
            return ScriptedStep.refusal(of: event)
        }
        let worker = try bench.run(first, grace: grace) { duration in
            guard duration == grace else { return }
            release.signal()
            try await Task.sleep(for: duration)
        }
        try await bench.publish(ScriptedStep.request("in-hand"))
        try await bench.publish(ScriptedStep.request("waiting"))
        for await _ in started { break }
        try await worker.stop()

        #expect(first.flows == ["in-hand"], "the waiting message is not taken once stopping")
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "in-hand"), "the message in hand was answered")

        // The next worker of the group starts after the committed message in hand.
        let next = ScriptedStep()
        let successor = try bench.run(next)
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "waiting"))
        #expect(next.flows == ["waiting"])
        try await successor.stop()
        #expect(try await bench.everything().filter { $0.topic == Topic.authOutcomes }.map(\.keyString) == ["in-hand", "waiting"])
    }
}
