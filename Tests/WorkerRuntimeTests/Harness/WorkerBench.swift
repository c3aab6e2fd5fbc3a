import Domain
import EventTransport
import Foundation
import Kafka
import Support
import Synchronization
@testable import TestSupport
import WorkerRuntime

/// The real `Worker` on librdkafka's mock cluster in this process, with the topics of `ScriptedStep`'s
/// routes (one partition each, so one flow's order is the topic's), their dead-letter topics and the
/// outcome topics. Waits go through `sleep`, which records them and returns at once unless a test
/// says otherwise.
final class WorkerBench: Sendable {
    static let inputs = RoutingTable([ScriptedStep()]).topics
    static let topics = (inputs + inputs.map(Topic.deadLetters) + Topic.outcomes).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }

    let cluster: MockCluster
    let configuration: KafkaConfiguration
    /// Every wait the worker asked for, in order.
    let sleeps = Mutex<[Duration]>([])

    /// A bench whose worker gives up a send after `deliveryTimeout`, and whose consumers heartbeat
    /// every `heartbeatInterval` within a session of `sessionTimeout`.
    init(deliveryTimeout: Duration = .seconds(60), sessionTimeout: Duration = .seconds(6),
         heartbeatInterval: Duration = .seconds(3)) throws {
        cluster = try MockCluster(brokers: 1)
        try cluster.createTopics(Self.topics.map { ($0, 1) })
        var configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "worker-bench")
        configuration.groupID = "bench-\(UUID().uuidString.prefix(8))"
        configuration.sessionTimeout = sessionTimeout  // the mock holds a rebalance for (session timeout - 1 s)
        configuration.heartbeatInterval = heartbeatInterval
        configuration.deliveryTimeout = deliveryTimeout
        self.configuration = configuration
    }

    /// A worker running `step` in the bench's consumer group, and `periodic` every `interval` when given;
    /// `sleep` replaces the recorded instant sleep.
    func run(_ step: ScriptedStep, grace: Duration = .seconds(10), heartbeat: Duration = .seconds(30),
             sleep: (@Sendable (Duration) async throws -> Void)? = nil,
             periodic: (@Sendable () throws -> [Event])? = nil, every interval: Duration = .seconds(5)) throws -> Running {
        let worker = try Worker(name: "bench-worker", configuration: configuration, routing: RoutingTable([step]),
                                signer: TestEventKeys.account, verifier: TestEventKeys.verifier, grace: grace,
                                heartbeat: heartbeat,
                                sleep: sleep ?? { [self] duration in sleeps.withLock { $0.append(duration) } })
        let shutdown = ShutdownSignal(signals: [])
        return Running(shutdown: shutdown, task: Task { try await worker.run(until: shutdown, every: interval, periodic: periodic) })
    }

    /// A running worker.
    struct Running {
        let shutdown: ShutdownSignal
        let task: Task<Void, any Error>

        /// Asks the worker to stop and waits until it has.
        func stop() async throws {
            shutdown.trigger()
            try await task.value
        }
    }

    /// The first message keyed `key` on `topic`, read from the topic's start, or nil when none came within `timeout`.
    func message(on topic: String, key: String, timeout: Duration = .seconds(60)) async throws -> KafkaMessage? {
        let consumer = try KafkaConsumer(configuration: configuration,
                                         assignment: [TopicPartitionOffset(topic: topic, partition: 0, offset: .beginning)])
        let deadline = Task {
            try await Task.sleep(for: timeout)
            consumer.close()  // ends `messages`
        }
        defer {
            deadline.cancel()
            consumer.close()
        }
        for try await message in consumer.messages where message.keyString == key { return message }
        return nil
    }

    /// Publishes `value` to `topic` with `key`, with a producer taking messages of up to `maxBytes`
    /// (librdkafka's default 1,000,000 unless given).
    func publish(_ value: [UInt8], to topic: String, key: String, headers: [KafkaHeader] = [], maxBytes: Int? = nil) async throws {
        var configuration = configuration
        configuration.deliveryTimeout = .seconds(60)  // the bench's own sends wait for the broker, whatever the worker's do
        if let maxBytes { configuration.properties["message.max.bytes"] = String(maxBytes) }
        let producer = try KafkaProducer(configuration: configuration)
        try await producer.send(OutgoingMessage(topic: topic, key: Array(key.utf8), value: value, headers: headers))
        await producer.close()
    }

    /// Publishes `event` to `topic` (its own by default), keyed by its flow id unless `key` says otherwise,
    /// signed as the account worker for its own topic and key (as the worker's outcomes on `registration.outcomes` are).
    func publish(_ event: Event, to topic: String? = nil, key: String? = nil) async throws {
        let message = OutgoingMessage(event, producer: "bench", signer: TestEventKeys.account)
        try await publish(message.value, to: topic ?? event.topic, key: key ?? event.key, headers: message.headers)
    }

    /// Every message on the bench's topics right now.
    func everything() async throws -> [KafkaMessage] {
        try await TopicSnapshot.read(Self.topics, configuration: configuration)
    }
}

extension KafkaMessage {
    /// The value of header `name` as text.
    func text(_ name: String) -> String? {
        header(name).map { String(decoding: $0, as: UTF8.self) }
    }
}
