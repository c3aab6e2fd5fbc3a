import Foundation
import Kafka
import Domain
import Support

/// The loop every worker runs: consume an event, decode it, let the step handle it (retrying
/// transient failures), publish the step's events and wait for the broker's acknowledgement, then
/// commit the input. Messages that cannot be processed at all go to the dead-letter topic.
///
/// The input is committed only after the outputs are acknowledged, so a crash anywhere replays the
/// input: steps are idempotent, and the at-least-once chain never loses a step.
public final class Worker: Sendable {
    private let name: String
    private let consumer: KafkaConsumer
    private let producer: KafkaProducer
    private let handler: any EventHandler
    private let retry: RetryPolicy
    private let logger: Logger

    /// A worker named `name` (also its consumer group) handling `topics` with `handler`.
    public init(name: String, configuration: KafkaConfiguration, topics: [String], handler: any EventHandler,
                retry: RetryPolicy = .init()) throws {
        var consumerConfiguration = configuration
        consumerConfiguration.groupID = consumerConfiguration.groupID ?? name
        self.name = name
        self.consumer = try KafkaConsumer(configuration: consumerConfiguration, subscribingTo: topics)
        self.producer = try KafkaProducer(configuration: configuration)
        self.handler = handler
        self.retry = retry
        self.logger = Logger(component: name)
    }

    /// Runs until `shutdown` fires (or the consumer fails), then commits, flushes and leaves the group.
    /// `periodic`, when given, runs every `interval` on the same loop (e.g. the stuck-saga sweep).
    public func run(until shutdown: ShutdownSignal, every interval: Duration = .seconds(5),
                    periodic: (@Sendable () throws -> [Event])? = nil) async throws {
        logger.info("started")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.consume() }
            if let periodic {
                group.addTask {
                    while !Task.isCancelled {
                        try await Task.sleep(for: interval)
                        let events = try await self.retrying("periodic") { try periodic() }
                        try await self.publish(events)
                    }
                }
            }
            group.addTask { await shutdown.wait() }
            try await group.next()
            group.cancelAll()
        }
        logger.info("stopping: committing processed offsets and leaving the group")
        consumer.close()
        await producer.close()
        logger.info("stopped")
    }

    private func consume() async throws {
        for try await message in consumer.messages {
            try await process(message)
            try consumer.commit(message)
        }
    }

    private func process(_ message: KafkaMessage) async throws {
        let log = logger.with(["topic": message.topic, "partition": message.partition, "offset": message.offset])
        let event: Event
        do {
            event = try EventCodec.decode(message.value)
        } catch {
            return try await deadLetter(message, reason: error.kind.rawValue, error: error.detail, attempts: 1, log: log)
        }
        let flow = log.with(["flow_id": event.key, "type": event.type])
        do {
            let outputs = try await retrying(event.type, log: flow) { try self.handler.handle(event) }
            try await publish(outputs)
            flow.info("handled", ["published": outputs.map(\.type).joined(separator: ",")])
        } catch let error as UnexpectedEvent {
            try await deadLetter(message, reason: "unexpected_type", error: error.description, attempts: 1, log: flow)
        } catch let error as GaveUp {
            try await deadLetter(message, reason: "retries_exhausted", error: error.description,
                                 attempts: retry.maxAttempts, log: flow)
        }
    }

    /// Runs `step`, retrying transient store failures with back-off; gives up after the policy's attempts.
    private func retrying<T: Sendable>(_ what: String, log: Logger? = nil,
                                       _ step: @escaping @Sendable () throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await offload(step)
            } catch let error as StoreError where error.kind == .transient {
                guard attempt < retry.maxAttempts else { throw GaveUp(attempts: attempt, last: error.message) }
                (log ?? logger).warning("transient failure, retrying", ["step": what, "attempt": attempt, "error": error.message])
                try await Task.sleep(for: retry.delay(after: attempt))
                attempt += 1
            }
        }
    }

    private func publish(_ events: [Event]) async throws {
        // Send all, then wait for every acknowledgement: the order per key is kept by the producer.
        let messages = events.map { event in
            OutgoingMessage(topic: event.topic, key: Array(event.key.utf8), value: EventCodec.encode(event),
                            headers: [KafkaHeader(key: "type", value: Array(event.type.utf8)),
                                      KafkaHeader(key: "producer", value: Array(name.utf8))])
        }
        for message in messages { _ = try await producer.send(message) }
    }

    private func deadLetter(_ message: KafkaMessage, reason: String, error: String, attempts: Int, log: Logger) async throws {
        let letter = DeadLetter(original: message, reason: reason, error: error, worker: name, attempts: attempts)
        _ = try await producer.send(letter.message(to: Topic.deadLetters(of: message.topic)))
        log.warning("dead-lettered", ["reason": reason, "error": error])
    }

    private struct GaveUp: Error, CustomStringConvertible {
        var attempts: Int
        var last: String
        var description: String { "still failing after \(attempts) attempts: \(last)" }
    }
}
