import Domain
import EventTransport
import Foundation
import Kafka
import WorkerRuntime

/// The tests' client of an installation: publish requests and raw bytes, await an outcome, read the
/// topics. (Minimal on purpose, until the `RegistrarClient` library serves the tests too.)
extension Installation {
    /// Publishes raw bytes to a topic.
    func publish(_ value: [UInt8], to topic: String, key: String) async throws {
        let producer = try KafkaProducer(configuration: kafka)
        _ = try await producer.send(OutgoingMessage(topic: topic, key: Array(key.utf8), value: value, headers: []))
        await producer.close()
    }

    /// Publishes requests (acknowledged by the broker before returning).
    func publish(_ requests: [RegistrationRequested]) async throws {
        let producer = try KafkaProducer(configuration: kafka)
        for request in requests { _ = try await producer.send(OutgoingMessage(.registrationRequested(request), producer: "e2e-test")) }
        await producer.close()
    }

    /// Publishes `request` and returns the first event keyed by its id on `topic` (its outcome topic by default).
    func send(_ request: Event, awaiting topic: String? = nil, timeout: Duration = .seconds(60)) async throws -> Event {
        let topic = topic ?? Self.outcomeTopic(of: request)
        let waiter = try OutcomeWaiter(topic: topic, configuration: kafka)
        let producer = try KafkaProducer(configuration: kafka)
        _ = try await producer.send(OutgoingMessage(request, producer: "e2e-test"))
        await producer.close()
        guard let message = try await waiter.wait(forKey: request.key, timeout: timeout) else {
            throw HarnessError("no \(topic) message for \(request.key) within \(timeout)")
        }
        return try message.event()
    }

    /// Every outcome published so far, by registration id (a redelivered saga may publish its outcome twice).
    func outcomes() async throws -> [String: [Event]] {
        let messages = try await TopicSnapshot.read([Topic.registrationOutcomes], configuration: kafka)
        var outcomes: [String: [Event]] = [:]
        for message in messages {
            let event = try message.event()
            outcomes[event.registrationId, default: []].append(event)
        }
        return outcomes
    }

    /// Waits until every id in `ids` has an outcome; returns them. Fails after `timeout`.
    func waitForOutcomes(_ ids: [String], timeout: Duration = .seconds(90)) async throws -> [String: [Event]] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let outcomes = try await self.outcomes()
            if ids.allSatisfy({ outcomes[$0] != nil }) { return outcomes }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("no outcome within \(timeout) for \(ids.filter { outcomes[$0] == nil })")
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// The bytes of every message on every Registrar topic.
    func allTopicMessages() async throws -> [KafkaMessage] {
        try await TopicSnapshot.read(Topic.all.map(\.name), configuration: kafka)
    }

    private static func outcomeTopic(of request: Event) -> String {
        switch request.topic {
        case Topic.codeRequests: Topic.codeOutcomes
        case Topic.authRequests: Topic.authOutcomes
        default: Topic.accountOutcomes
        }
    }
}
