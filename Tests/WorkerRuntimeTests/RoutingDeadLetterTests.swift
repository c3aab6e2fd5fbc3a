import Domain
import Kafka
@testable import TestSupport
import Testing
@testable import WorkerRuntime

/// What the worker does with a message its routing table cannot hand to a step: it copies the message
/// to its topic's dead-letter topic with the reason, commits it and goes on. No step is called and
/// nothing else is published. (The real `Worker` on an in-process mock cluster.)
@Suite(.tags(.kafka)) struct RoutingDeadLetterTests {
    static let completed = Event.registrationCompleted(RegistrationCompleted(registrationId: "reg-1", sealedResult: "c2VhbGVk"))

    @Test func anEventOfATypeNotTakenOnItsTopicIsDeadLetteredAsUnexpectedType() async throws {
        let run = try Run()
        let letter = try await run.deadLetter(key: "reg-1") { try await $0.publish(Self.completed, to: Topic.authRequests) }
        #expect(letter.text("dlq.reason") == "unexpected_type")
        let error = try #require(letter.text("dlq.error"))
        #expect(error.contains("RegistrationCompleted") && error.contains(Topic.authRequests), "\(error)")
        #expect(letter.value == EventCodec.encode(Self.completed), "original bytes kept")

        // The same event on the topic the step takes it on is handled.
        try await run.bench.publish(Self.completed)
        #expect(try await run.bench.message(on: Topic.authOutcomes, key: "reg-1") != nil)
        #expect(run.step.flows == ["after", "reg-1"])
        try await run.worker.stop()
    }

    @Test func aMessageKeyedOtherThanItsFlowIsDeadLetteredAsKeyMismatch() async throws {
        let run = try Run()
        let letter = try await run.deadLetter(key: "someone-else", answering: "req-a") {
            try await $0.publish(ScriptedStep.request("req-a"), key: "someone-else")
        }
        #expect(letter.text("dlq.reason") == "key_mismatch")
        let error = try #require(letter.text("dlq.error"))
        #expect(error.contains("someone-else") && error.contains("req-a"), "\(error)")

        // The request's id is readable: its client gets a failure instead of waiting forever.
        let answer = try #require(try await run.bench.message(on: Topic.authOutcomes, key: "req-a"))
        guard case .tokenRefused(let refusal) = try EventCodec.decode(answer.value) else {
            Issue.record("not a TokenRefused")
            return
        }
        #expect(refusal.reason == .requestInvalid)
        #expect(refusal.message.contains("key_mismatch"), "\(refusal.message)")
        try await run.worker.stop()
    }

    @Test func anUndecodableMessageIsDeadLettered() async throws {
        let run = try Run()
        let letter = try await run.deadLetter(key: "junk") {
            try await $0.publish(Array("not json at all".utf8), to: Topic.authRequests, key: "junk")
        }
        #expect(letter.text("dlq.reason") == "not_json")
        #expect(letter.value == Array("not json at all".utf8))
        try await run.worker.stop()
    }

    /// A worker running a `ScriptedStep`.
    struct Run {
        let bench: WorkerBench
        let step = ScriptedStep()
        let worker: WorkerBench.Running

        init() throws {
            bench = try WorkerBench()
            worker = try bench.run(step)
        }

        /// Publishes a bad message (keyed `key`, on `auth.requests`) with `publishBad`, then a good
        /// request `after`; once `after` is answered, returns the bad message's dead letter, having
        /// checked that the step was handed `after` only and that nothing but the letter, that answer
        /// and a failure keyed `answering` (when the bad message's id can be read) was published.
        func deadLetter(key: String, answering failed: String? = nil,
                        _ publishBad: (WorkerBench) async throws -> Void) async throws -> KafkaMessage {
            try await publishBad(bench)
            try await bench.publish(ScriptedStep.request("after"))
            _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "after"))
            #expect(step.flows == ["after"], "the step is never handed the bad message")

            let published = try await bench.everything().filter { !WorkerBench.inputs.contains($0.topic) }
            let failure = failed.map { ["\(Topic.authOutcomes) \($0)"] } ?? []
            #expect(published.map { "\($0.topic) \($0.keyString ?? "-")" }.sorted()
                    == (["\(Topic.authOutcomes) after", "\(Topic.deadLetters(of: Topic.authRequests)) \(key)"] + failure).sorted())
            let letter = try #require(published.first { $0.topic == Topic.deadLetters(of: Topic.authRequests) })
            #expect(letter.text("dlq.topic") == Topic.authRequests)
            #expect(letter.text("dlq.worker") == "bench-worker")
            #expect(letter.text("dlq.attempts") == "1")
            return letter
        }
    }
}
