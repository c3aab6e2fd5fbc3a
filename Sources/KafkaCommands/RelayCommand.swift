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

    /// Least time between two offset commits; offsets in between are committed by the next one.
    private static let commitInterval = Duration.milliseconds(100)

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
            let producer = try KafkaProducer(configuration: configuration)
            let consumer = try KafkaConsumer(configuration: configuration, subscribingTo: [source])
            let lastCommit = Mutex(ContinuousClock.now)
            let inFlight = InFlightMessages { message in
                do {
                    let now = ContinuousClock.now
                    let commitNow = lastCommit.withLock { last in
                        guard now - last >= commitInterval else { return false }
                        last = now
                        return true
                    }
                    if commitNow {
                        try consumer.commit(message)
                    } else {
                        try consumer.markProcessed(message)
                    }
                } catch {
                    // The partition moved to another member, which will copy the message again.
                    logger.warning("cannot commit: \(error)", ["partition": Int(message.partition), "offset": message.offset])
                }
            }
            let reports = producer.deliveryReports
            let acknowledger = Task {
                for await report in reports {
                    if let error = report.error {
                        logger.error("delivery failed: \(error)")
                        return false
                    }
                    inFlight.acknowledge(report.messageID)
                }
                return true
            }
            let reader = Task {
                for try await message in consumer.messages {
                    let copy = OutgoingMessage(topic: destination, key: message.key, value: message.value, headers: message.headers)
                    inFlight.add(message, id: try await producer.enqueue(copy))
                }
            }
            let stop = Task {
                await shutdown.wait()
                reader.cancel()
            }
            let failure = Task {
                if await acknowledger.value == false { reader.cancel() }
            }
            let readError = await reader.result
            stop.cancel()
            try? await producer.flush(timeout: configuration.deliveryTimeout)
            consumer.close()  // commits what was acknowledged, leaves the group
            await producer.close()
            let delivered = await acknowledger.value
            failure.cancel()
            if case .failure(let error) = readError {
                logger.error("consume failed: \(error)")
                return .failure
            }
            return delivered ? .success : .failure
        }
    }
}
