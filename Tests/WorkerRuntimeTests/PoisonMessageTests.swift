import Crypto
import Domain
import EventTransport
import Kafka
@testable import TestSupport
import Testing
@testable import WorkerRuntime

/// No message stops a worker: whatever the broker takes on an input topic, of any size and any bytes,
/// is handled or dead-lettered, and the input is committed past it. A dead letter too large for the
/// producer carries a prefix with the original's size and SHA-256, and a request whose id can be read
/// is answered with its failure. (The real `Worker` on an in-process mock cluster.)
@Suite(.tags(.kafka), .serialized) struct PoisonMessageTests {
    /// librdkafka's default `message.max.bytes`, the worker's producer limit.
    static let producerLimit = 1_000_000

    /// The bodies published on `topic`, each keyed by its flow id: a valid request just under the
    /// decoder's limit, requests just over it, just under and just over the producer's limit, and bytes
    /// that are no text.
    static func bodies(on topic: String) -> [(id: String, value: [UInt8], handled: Bool)] {
        let garbage = (0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 7919 ^ 0xA5) }
        return [
            ("\(topic)-under-decoder", ContractLimits.messageBytes, true),
            ("\(topic)-over-decoder", ContractLimits.messageBytes + 1, false),
            ("\(topic)-under-producer", producerLimit - 1_000, false),
            ("\(topic)-over-producer", producerLimit + 500, false),
        ].map { ($0.0, padded($0.2 ? EventCodec.encode(ScriptedStep.request($0.0)) : naming($0.0), to: $0.1), $0.2) }
            + [("\(topic)-garbage", garbage, false)]
    }

    @Test func everyInputTopicTakesMessagesOfEverySizeAndGoesOn() async throws {
        let bench = try WorkerBench()
        let step = ScriptedStep()
        let worker = try bench.run(step)
        for topic in Topic.inputs {
            let bodies = Self.bodies(on: topic)
            for body in bodies {
                // A broker takes up to 1,048,588 bytes by default: publish the largest with a producer allowing that.
                try await bench.publish(body.value, to: topic, key: body.id, maxBytes: 1_048_576)
            }
            try await bench.publish(ScriptedStep.request("\(topic)-after"), to: topic)
            _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "\(topic)-after"), "\(topic): the worker goes on")
            #expect(step.flows.contains("\(topic)-under-decoder") && step.flows.contains("\(topic)-after"), "\(topic)")

            let letters = try await TopicSnapshot.read([Topic.deadLetters(of: topic)], configuration: bench.configuration)
            let dead = bodies.filter { !$0.handled }
            #expect(letters.compactMap(\.keyString) == dead.map(\.id))
            for (letter, body) in zip(letters, dead) {
                try Self.check(letter, carries: body.value, reason: body.id.hasSuffix("garbage") ? "not_json" : "too_large")
            }
            // A request whose id can be read is answered with a failure, even when too large to decode.
            for body in dead where !body.id.hasSuffix("garbage") {
                guard let failure = RequestFailure.outcome(ofRequestOn: topic, id: body.id, message: "") else { continue }
                let answer = try #require(try await bench.message(on: failure.topic, key: body.id), "\(body.id) answered")
                #expect(answer.value.count < 4_096)
                #expect(try EventCodec.decode(answer.value).kind == failure.kind)
            }
        }
        try await worker.stop()

        // Everything was committed: the next worker of the group is handed only what comes next.
        let next = ScriptedStep()
        let successor = try bench.run(next)
        try await bench.publish(ScriptedStep.request("final"))
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "final"))
        #expect(next.flows == ["final"])
        try await successor.stop()
        let letters = try await TopicSnapshot.read(Topic.inputs.map(Topic.deadLetters), configuration: bench.configuration)
        #expect(letters.count == Topic.inputs.count * 4, "nothing dead-lettered twice")
    }

    @Test func aDeadLetterThatCannotBePublishedIsRetriedUntilItIs() async throws {
        let bench = try WorkerBench(deliveryTimeout: .seconds(1))
        let deadLetters = Topic.deadLetters(of: Topic.authRequests)
        bench.cluster.setTopicError(deadLetters, error: KafkaError.Code.unknownTopicOrPartition)
        let worker = try bench.run(ScriptedStep())
        try await bench.publish(Array("not json".utf8), to: Topic.authRequests, key: "junk")
        try await bench.publish(ScriptedStep.request("after"))
        let deadline = ContinuousClock.now + .seconds(60)
        while bench.sleeps.withLock({ $0.count }) < 2 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(bench.sleeps.withLock { $0.count } >= 2, "the failed dead letter is retried with back-off")

        bench.cluster.setTopicError(deadLetters, error: 0)
        let letter = try #require(try await bench.message(on: deadLetters, key: "junk"))
        #expect(letter.text("dlq.reason") == "not_json")
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "after"), "the worker goes on")
        try await worker.stop()
    }

    /// Checks that `letter` carries `original` whole, or else a prefix of it with its size and SHA-256,
    /// within the producer's limit.
    static func check(_ letter: KafkaMessage, carries original: [UInt8], reason: String) throws {
        #expect(letter.text("dlq.reason") == reason)
        let size = (letter.key?.count ?? 0) + letter.value.count
            + letter.headers.reduce(0) { $0 + $1.key.utf8.count + ($1.value?.count ?? 0) }
        #expect(size <= producerLimit)
        guard letter.text("dlq.truncated") == "true" else {
            #expect(letter.value == original, "a letter that says nothing carries the original whole")
            #expect(original.count <= ContractLimits.messageBytes + 1)
            return
        }
        #expect(original.count > producerLimit - 4_096, "only an original the producer cannot carry is cut")
        #expect(letter.text("dlq.original-bytes") == String(original.count))
        #expect(letter.text("dlq.original-sha256") == sha256Hex(original))
        #expect(!letter.value.isEmpty && Array(original.prefix(letter.value.count)) == letter.value)
    }

    /// `bytes` followed by spaces up to `size` bytes.
    static func padded(_ bytes: [UInt8], to size: Int) -> [UInt8] {
        bytes + [UInt8](repeating: 0x20, count: size - bytes.count)
    }

    /// A JSON object naming `id` the way every request topic's requests do (`registrationId`, `requestId`).
    static func naming(_ id: String) -> [UInt8] {
        Array(#"{"registrationId":"\#(id)","requestId":"\#(id)","type":"RegistrationRequested","version":1}"#.utf8)
    }
}
