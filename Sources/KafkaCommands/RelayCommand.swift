import Foundation
import Kafka
import Support
import Synchronization

/// `kafka-tool relay`: one hop of the benchmark — consumes a topic and produces every message
/// (key, value, headers) to another, committing a message only once its copy is acknowledged.
enum RelayCommand {
    static let spec = CommandSpec(
        name: "relay",
        summary: "Copy messages from one topic to another (at least once), until SIGTERM",
        options: ClientOptions.common + [
            .value("from", "Topic to consume"),
            .value("to", "Topic to produce to"),
            .value("group", "Consumer group (default: relay-<from>-<to>)"),
            .value("linger-ms", "Producer batching delay", default: "1"),
            .value("fetch-wait-max-ms", "Broker fetch wait", default: "10"),
            .value("session-timeout-ms", "Group session timeout", default: "30000"),
        ])


    @Sendable static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { arguments in
            let source = try arguments.required("from")
            let destination = try arguments.required("to")
            let logger = Logger(component: "relay", fields: ["from": source, "to": destination])
            var configuration = try ClientOptions.configuration(arguments, spec: spec, logger: logger)
            configuration.groupID = arguments.value("group") ?? "relay-\(source)-\(destination)"
            configuration.linger = try ClientOptions.milliseconds(arguments, "linger-ms") ?? .milliseconds(1)
            configuration.fetchWaitMax = try ClientOptions.milliseconds(arguments, "fetch-wait-max-ms") ?? .milliseconds(10)
            configuration.sessionTimeout = try ClientOptions.milliseconds(arguments, "session-timeout-ms") ?? .seconds(30)
            configuration.autoOffsetReset = .earliest
            configuration.rebalanceHandler = { event in
                if case .assigned(let partitions) = event {
                    JSONLines.emit(JSONLines.object(for: partitions, event: "assigned"))
                }
            }

            let shutdown = ShutdownSignal()
            let progress = RelayProgress(logger: logger)
            // The consumer's polling thread serves the delivery reports between batches: no thread is woken per report.
            let producer = try KafkaProducer(configuration: configuration, deliveryHandler: { report in
                if let error = report.error { return progress.fail("delivery failed: \(error)") }
                progress.inFlight.acknowledge(report.messageID)
            }, servingReports: false)
            let consumer = try KafkaConsumer(configuration: configuration, subscribingTo: [source])
            // Messages are copied on the consumer's polling thread, a batch at a time, straight from librdkafka's buffers.
            let reader = Task {
                try await consumer.consume(batches: { batch in
                    guard !progress.hasFailed else { return }
                    for message in batch {
                        do {
                            let id = try producer.produce(copying: message, to: destination)
                            progress.inFlight.add(id: id, partition: message.partition, offset: message.offset)
                        } catch {
                            return progress.fail("produce failed: \(error)")
                        }
                    }
                }, afterEachPoll: {
                    producer.serveDeliveryReports()
                    progress.commit(source, of: consumer, now: false)
                })
            }
            let stop = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await shutdown.wait() }
                    group.addTask { await progress.failed.wait() }
                    await group.next()
                    group.cancelAll()
                }
                reader.cancel()
            }
            let readError = await reader.result
            stop.cancel()
            try? await producer.flush(timeout: configuration.deliveryTimeout)
            progress.commit(source, of: consumer, now: true)
            consumer.close()  // commits what was acknowledged, leaves the group
            await producer.close()
            if case .failure(let error) = readError {
                logger.error("consume failed: \(error)")
                return .failure
            }
            return progress.hasFailed ? .failure : .success
        }
    }
}

/// A relay's messages in flight, its commits and its first failure.
private final class RelayProgress: Sendable {
    /// Least time between two offset commits; offsets in between are committed by the next one.
    static let commitInterval = Duration.milliseconds(100)

    let inFlight = InFlightMessages()
    /// Triggered by the first failure.
    let failed = ShutdownSignal(signals: [])
    private let failure = Mutex<String?>(nil)
    private let lastCommit = Mutex(ContinuousClock.now)
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    var hasFailed: Bool { failure.withLock { $0 != nil } }

    /// Records the first failure (logged) and triggers `failed`.
    func fail(_ message: String) {
        guard failure.withLock({ old in defer { old = old ?? message }; return old == nil }) else { return }
        logger.error(message)
        failed.trigger()
    }

    /// Commits what was acknowledged in order, at most every `commitInterval` unless `now`.
    func commit(_ topic: String, of consumer: KafkaConsumer, now: Bool) {
        let due = lastCommit.withLock { last in
            let time = ContinuousClock.now
            guard now || time - last >= Self.commitInterval else { return false }
            last = time
            return true
        }
        guard due else { return }
        let offsets = Dictionary(uniqueKeysWithValues: inFlight.committable.map {
            (TopicPartition(topic: topic, partition: $0.key), $0.value)
        })
        do {
            try consumer.commit(nextOffsets: offsets)
        } catch {
            // A partition moved to another member, which will copy its messages again.
            logger.warning("cannot commit: \(error)")
        }
    }
}
