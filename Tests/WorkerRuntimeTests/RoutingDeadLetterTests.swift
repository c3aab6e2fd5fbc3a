import Domain
import Kafka
import Testing
@testable import WorkerRuntime

/// What the worker does with a message its routing table cannot hand to a step: it copies the message
/// to its topic's dead-letter topic with the reason, commits it and goes on. No step is called and
/// nothing else is published. (The real `Worker` on an in-process mock cluster.)
@Suite struct RoutingDeadLetterTests {
    static let completed = Event.registrationCompleted(RegistrationCompleted(
        registrationId: "reg-1", uid: "00000000-0000-0000-0000-000000000001",
        profile: Profile(name: "Ada", email: "ada@example.com", profileImage: "https://example.com/a.jpg", isMapLocationEnabled: false)))

    @Test func anEventOfATypeNotTakenOnItsTopicIsDeadLetteredAsUnexpectedType() async throws {
        let bench = try WorkerBench()
        let step = ScriptedStep()
        let answers = try bench.waiter(on: Topic.authOutcomes)
        let worker = try bench.run(step)
        let letter = try await deadLetter(key: "reg-1", step: step, bench: bench, answers: answers) {
            try await bench.publish(Self.completed, to: Topic.authRequests)
        }
        #expect(letter.text("dlq.reason") == "unexpected_type")
        let error = try #require(letter.text("dlq.error"))
        #expect(error.contains("RegistrationCompleted") && error.contains(Topic.authRequests), "\(error)")
        #expect(letter.value == EventCodec.encode(Self.completed), "original bytes kept")

        // The same event on the topic the step takes it on is handled.
        try await bench.publish(Self.completed)
        #expect(try await answers.wait(forKey: "reg-1", timeout: .seconds(60)) != nil)
        #expect(step.flows == ["after", "reg-1"])
        try await worker.stop()
    }

    @Test func aMessageKeyedOtherThanItsFlowIsDeadLetteredAsKeyMismatch() async throws {
        let bench = try WorkerBench()
        let step = ScriptedStep()
        let answers = try bench.waiter(on: Topic.authOutcomes)
        let worker = try bench.run(step)
        let letter = try await deadLetter(key: "someone-else", step: step, bench: bench, answers: answers) {
            try await bench.publish(ScriptedStep.request("req-a"), key: "someone-else")
        }
        #expect(letter.text("dlq.reason") == "key_mismatch")
        let error = try #require(letter.text("dlq.error"))
        #expect(error.contains("someone-else") && error.contains("req-a"), "\(error)")
        try await worker.stop()
    }

    @Test func anUndecodableMessageIsDeadLettered() async throws {
        let bench = try WorkerBench()
        let step = ScriptedStep()
        let answers = try bench.waiter(on: Topic.authOutcomes)
        let worker = try bench.run(step)
        let letter = try await deadLetter(key: "junk", step: step, bench: bench, answers: answers) {
            try await bench.publish(Array("not json at all".utf8), to: Topic.authRequests, key: "junk")
        }
        #expect(letter.text("dlq.reason") == "not_json")
        #expect(letter.value == Array("not json at all".utf8))
        try await worker.stop()
    }

    /// Publishes the bad message (keyed `key`, on `auth.requests`) with `publishBad`, then a good
    /// request `after`; once `after` is answered, returns the bad message's dead letter, having
    /// checked that the step was handed `after` only and that nothing but the letter and that answer
    /// was published.
    private func deadLetter(key: String, step: ScriptedStep, bench: WorkerBench, answers: OutcomeWaiter,
                            _ publishBad: () async throws -> Void) async throws -> KafkaMessage {
        try await publishBad()
        try await bench.publish(ScriptedStep.request("after"))
        _ = try #require(try await answers.wait(forKey: "after", timeout: .seconds(60)))
        #expect(step.flows == ["after"], "the step is never handed the bad message")

        let everything = try await bench.everything()
        let published = everything.filter { !WorkerBench.inputs.contains($0.topic) }
        #expect(published.map { "\($0.topic) \($0.keyString ?? "-")" }.sorted()
                == ["\(Topic.authOutcomes) after", "\(Topic.deadLetters(of: Topic.authRequests)) \(key)"])
        let letter = try #require(published.first { $0.topic == Topic.deadLetters(of: Topic.authRequests) })
        #expect(letter.text("dlq.topic") == Topic.authRequests)
        #expect(letter.text("dlq.worker") == "bench-worker")
        #expect(letter.text("dlq.attempts") == "1")
        return letter
    }
}
