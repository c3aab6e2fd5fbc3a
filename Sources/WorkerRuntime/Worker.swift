import Foundation
import Kafka
import Domain
import EventTransport
import Support

/// The loop every worker runs: consume an event, decode it, hand it to the step of its route
/// (retrying transient failures), publish the step's events and wait for the broker's
/// acknowledgement, then commit the input. Messages that cannot be processed at all go to the
/// dead-letter topic: undecodable ones, an event of a type not taken on the topic it arrived on
/// (`unexpected_type`), one whose message key is not its flow id (`key_mismatch`), and one its step
/// refuses as contradicting the step's records (`UntrustedEvent`: `unknown_saga`, `reply_mismatch`).
///
/// The input is committed only after the outputs are acknowledged, so a crash anywhere replays the
/// input: steps are idempotent, and the at-least-once chain never loses a step. Each partition is
/// handled in order in its own lane, so a message waiting for a retry holds up only its partition.
public final class Worker: Sendable {
    private let name: String
    private let consumer: KafkaConsumer
    private let producer: KafkaProducer
    private let routing: RoutingTable
    private let retry: Backoff
    private let grace: Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger: Logger

    /// A worker named `name` (also its consumer group) reading the topics of `routing` and handing
    /// each event to the step of its route. On shutdown, messages being handled get `grace` to finish
    /// before they are abandoned (and redelivered later). Every wait (back-off, grace, the periodic
    /// interval) goes through `sleep`.
    public init(name: String, configuration: KafkaConfiguration, routing: RoutingTable,
                retry: Backoff = .worker, grace: Duration = .seconds(10),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) throws {
        var consumerConfiguration = configuration
        consumerConfiguration.groupID = consumerConfiguration.groupID ?? name
        self.name = name
        self.consumer = try KafkaConsumer(configuration: consumerConfiguration, subscribingTo: routing.topics)
        self.producer = try KafkaProducer(configuration: configuration)
        self.routing = routing
        self.retry = retry
        self.grace = grace
        self.sleep = sleep
        self.logger = Logger(component: name)
    }

    /// Runs until `shutdown` fires (or the consumer fails), then stops fetching, lets each partition
    /// finish the message in hand within the grace period, commits, flushes and leaves the group.
    /// `periodic`, when given, runs every `interval` beside the consumer (e.g. the stuck-saga sweep).
    public func run(until shutdown: ShutdownSignal, every interval: Duration = .seconds(5),
                    periodic: (@Sendable () throws -> [Event])? = nil) async throws {
        logger.info("started")
        let lanes = LaneTable()
        var failure: (any Error)?
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.dispatch(into: lanes) }
                group.addTask { for await error in lanes.failures { throw error } }
                if let periodic {
                    group.addTask {
                        while !Task.isCancelled {
                            try await self.sleep(interval)
                            try await self.publish(try await self.retrying("periodic") { try periodic() })
                        }
                    }
                }
                group.addTask { await shutdown.wait() }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            failure = error
            logger.error("stopping after a failure", ["error": "\(error)"])
        }
        logger.info("stopping: finishing the messages in hand, committing, leaving the group")
        await lanes.stop(grace: grace, sleep: sleep)
        consumer.close()
        await producer.close()
        logger.info("stopped")
        if let failure { throw failure }
    }

    /// Hands each message to its partition's lane, starting a lane for each new partition.
    private func dispatch(into lanes: LaneTable) async throws {
        for try await message in consumer.messages {
            let partition = TopicPartition(topic: message.topic, partition: message.partition)
            lanes.lane(for: partition, consumer: consumer) { lane in try await self.work(lane) }.append(message)
        }
    }

    /// Handles a lane's messages in order, committing each once its outputs are acknowledged.
    private func work(_ lane: PartitionLane) async throws {
        for await message in lane.messages {
            guard !lane.isStopping else { return }
            try await process(message, in: lane)
            try consumer.commit(message)
            lane.finishedOne()
        }
    }

    private func process(_ message: KafkaMessage, in lane: PartitionLane) async throws {
        let log = logger.with(["topic": message.topic, "partition": message.partition, "offset": message.offset])
        let event: Event
        do {
            event = try EventCodec.decode(message.value)
        } catch {
            return try await deadLetter(message, reason: DeadLetterReason(error.kind), error: error.detail, attempts: 1, log: log)
        }
        let flow = log.with(["flow_id": event.key, "type": event.type])
        guard let step = routing.step(for: event.kind, on: message.topic) else {
            return try await deadLetter(message, reason: .unexpectedType,
                                        error: "\(event.type) is not taken on \(message.topic)", attempts: 1, log: flow)
        }
        guard message.keyString == event.key else {
            let key = message.keyString.map { "\"\($0)\"" } ?? "missing"
            return try await deadLetter(message, reason: .keyMismatch,
                                        error: "message key \(key) is not the flow id \"\(event.key)\"", attempts: 1, log: flow)
        }
        do {
            let outputs = try await retrying(event.type, lane: lane, log: flow) { try step.handle(event) }
            try await publish(outputs, lane: lane)
            flow.info("handled", ["published": outputs.map(\.type).joined(separator: ",")])
        } catch let error as GaveUp {
            try await deadLetter(message, reason: .retriesExhausted, error: error.description,
                                 attempts: retry.attempts, log: flow)
        } catch let error as StoreError {
            try await deadLetter(message, reason: .stepFailed, error: error.message, attempts: 1, log: flow)
        } catch let error as UntrustedEvent {
            try await deadLetter(message, reason: error.reason, error: error.message, attempts: 1, log: flow)
        }
    }

    /// Runs `step`, retrying transient store failures with back-off while its partition is paused;
    /// gives up after the policy's attempts.
    private func retrying<T: Sendable>(_ what: String, lane: PartitionLane? = nil, log: Logger? = nil,
                                       _ step: @escaping @Sendable () throws -> T) async throws -> T {
        defer { lane?.setRetrying(false) }
        do {
            let isTransient = { (error: StoreError) in error.kind == .transient }
            return try await retry.run(isTransient: isTransient, willRetry: { error, attempt in
                (log ?? logger).warning("transient failure, retrying", ["step": what, "attempt": attempt, "error": error.message])
                lane?.setRetrying(true)
            }, sleep: sleep) { _ in try await offload(step) }
        } catch let error as StoreError where error.kind == .transient {
            throw GaveUp(attempts: retry.attempts, last: error.message)
        }
    }

    /// Publishes `events` in order and waits for every acknowledgement. A failed send (broker down
    /// past the delivery timeout) is retried with back-off while the partition is paused; the input
    /// stays uncommitted meanwhile, so nothing is lost whatever happens.
    private func publish(_ events: [Event], lane: PartitionLane? = nil) async throws {
        // Send all, then wait for every acknowledgement: the order per key is kept by the producer.
        let messages = events.map { OutgoingMessage($0, producer: name) }
        for message in messages {
            let isTransient = { (error: KafkaError) in !error.isFatal }
            _ = try await retry.run(limited: false, isTransient: isTransient, willRetry: { error, attempt in
                logger.warning("publish failed, retrying", ["topic": message.topic, "attempt": attempt, "error": error.message])
                lane?.setRetrying(true)
            }, sleep: sleep) { _ in try await producer.send(message) }
            lane?.setRetrying(false)
        }
    }

    private func deadLetter(_ message: KafkaMessage, reason: DeadLetterReason, error: String, attempts: Int, log: Logger) async throws {
        let letter = DeadLetter(original: message, reason: reason, error: error, worker: name, attempts: attempts)
        _ = try await producer.send(letter.message(to: Topic.deadLetters(of: message.topic)))
        log.warning("dead-lettered", ["reason": reason.rawValue, "error": error])
    }

    private struct GaveUp: Error, CustomStringConvertible {
        var attempts: Int
        var last: String
        var description: String { "still failing after \(attempts) attempts: \(last)" }
    }
}
