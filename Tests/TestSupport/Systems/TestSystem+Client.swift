import Domain
import EventTransport
import Foundation
import Kafka
import RegistrarClient
import WorkerRuntime

/// What the tests publish and read through a system's client, on either tier.
extension TestSystem {
    /// Publishes raw bytes to a topic.
    func publish(_ value: [UInt8], to topic: String, key: String) async throws {
        try await client.publish(OutgoingMessage(topic: topic, key: key, value: value))
    }

    /// Publishes `request` and returns the first event keyed by its id on `topic`, which need not be
    /// an outcome topic (e.g. the command a worker sends on to the next one).
    func send(_ request: Event, awaiting topic: String, timeout: Duration = .seconds(60)) async throws -> Event {
        // Any message: a test reads what the workers send each other, signed or not.
        let listener = try OutcomeListener(topics: [topic], configuration: kafka, admits: { _ in true })
        let message = try await listener.message(keyed: request.key, on: topic, within: timeout, after: {
            try await client.publish(request)
        })
        await listener.close(within: RegistrarClient.closeLimit)
        guard let message else { throw HarnessError("no \(topic) message for \(request.key) within \(timeout)") }
        return try message.event()
    }

    /// Every outcome published so far, by registration id (a redelivered saga may publish its outcome twice).
    func outcomes() async throws -> [String: [Event]] {
        var outcomes: [String: [Event]] = [:]
        for message in try await TopicSnapshot.read([Topic.registrationOutcomes], configuration: kafka) {
            let event = try message.event()
            outcomes[event.registrationId, default: []].append(event)
        }
        return outcomes
    }

    /// Waits until the log of `worker` holds one of `texts` (a worker's sign that it met a fault); fails after `timeout`.
    func waitForLog(of worker: String, containing texts: String..., timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !((try? String(contentsOfFile: "\(logs)/\(worker).log", encoding: .utf8)).map { log in texts.contains(where: log.contains) } ?? false) {
            guard ContinuousClock.now < deadline else { throw HarnessError("\(worker) did not log any of \(texts) within \(timeout)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The bytes of every message on every Registrar topic.
    func allTopicMessages() async throws -> [KafkaMessage] {
        try await TopicSnapshot.read(Topic.all.map(\.name), configuration: kafka)
    }

    /// Every message on the flows' topics: not the announcements (`account.events`), which the workers publish from
    /// their outboxes in their own time — what a test counts to see that a request published nothing.
    func flowMessages() async throws -> [KafkaMessage] {
        let announced = Set(Announcements.all.map(\.topic))
        return try await TopicSnapshot.read(Topic.all.map(\.name).filter { !announced.contains($0) }, configuration: kafka)
    }
}
