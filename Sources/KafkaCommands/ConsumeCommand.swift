import Kafka
import Support

/// `kafka-tool consume`: prints consumed messages and consumer events as JSON lines.
enum ConsumeCommand {
    static let spec = CommandSpec(
        name: "consume",
        summary: "Consume and print messages as JSON lines (plus assigned/revoked/committed events)",
        options: ClientOptions.common + [
            .value("topic", "Topic to read (all its partitions)", repeatable: true),
            .value("group", "Consumer group to join (otherwise reads every partition without a group)"),
            .flag("from-beginning", "Start at the oldest message where the group has no offset (default: newest)"),
            .value("count", "Exit after this many messages"),
            .flag("commit-after-each", "Commit each message after printing it, then print a 'committed' event"),
            .value("session-timeout-ms", "Group session timeout", default: "30000"),
            .value("connect-timeout-ms", "Fail if no broker answers within this time", default: "10000"),
            .flag("base64", "Print keys, values and header values as base64 even when they are text"),
        ])

    @Sendable static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { arguments in
            let logger = Logger(component: "consume")
            var configuration = try ClientOptions.configuration(arguments, spec: spec, logger: logger)
            let topics = arguments.values("topic")
            guard !topics.isEmpty else { throw UsageError.invalid("missing --topic", spec.helpText) }
            let group = arguments.value("group")
            let count = try arguments.integer("count")
            let commitAfterEach = arguments.flag("commit-after-each")
            guard group != nil || !commitAfterEach else {
                throw UsageError.invalid("--commit-after-each needs --group", spec.helpText)
            }
            let fromBeginning = arguments.flag("from-beginning")
            let connectTimeout = try ClientOptions.milliseconds(arguments, "connect-timeout-ms") ?? .seconds(10)
            let base64 = arguments.flag("base64")
            configuration.groupID = group
            configuration.autoOffsetReset = fromBeginning ? .earliest : .latest
            configuration.sessionTimeout = try ClientOptions.milliseconds(arguments, "session-timeout-ms") ?? .seconds(30)
            configuration.rebalanceHandler = { event in
                switch event {
                case .assigned(let partitions): JSONLines.emit(JSONLines.object(for: partitions, event: "assigned"))
                case .revoked(let partitions): JSONLines.emit(JSONLines.object(for: partitions, event: "revoked"))
                case .lost(let partitions): JSONLines.emit(JSONLines.object(for: partitions, event: "lost"))
                }
            }

            let shutdown = ShutdownSignal()
            let consumer: KafkaConsumer
            if group != nil {
                consumer = try KafkaConsumer(configuration: configuration, subscribingTo: topics)
                try checkConnectivity(consumer, topic: topics[0], timeout: connectTimeout)
            } else {
                consumer = try KafkaConsumer(configuration: configuration, assignment: [])
                var assignment: [TopicPartitionOffset] = []
                for topic in topics {
                    let partitions = try consumer.partitionCount(topic: topic, timeout: connectTimeout)
                    assignment += (0..<Int32(partitions)).map {
                        TopicPartitionOffset(topic: topic, partition: $0, offset: fromBeginning ? .beginning : .end)
                    }
                }
                try consumer.assign(assignment)
                JSONLines.emit(JSONLines.object(
                    for: assignment.map { TopicPartition(topic: $0.topic, partition: $0.partition) }, event: "assigned"))
            }
            let watcher = Task {
                await shutdown.wait()
                consumer.close()
            }
            defer {
                watcher.cancel()
                consumer.close()
            }
            var received = 0
            for try await message in consumer.messages {
                JSONLines.emit(JSONLines.object(for: message, base64: base64))
                if commitAfterEach {
                    try consumer.markProcessed(message)
                    try consumer.commitSync()
                    JSONLines.emit([
                        "event": "committed", "topic": message.topic, "partition": Int(message.partition),
                        "offset": message.offset + 1,
                    ])
                }
                received += 1
                if let count, received >= count { break }
            }
            return .success
        }
    }

    /// Fails fast when no broker answers; a topic that does not exist yet is fine for a subscriber.
    private static func checkConnectivity(_ consumer: KafkaConsumer, topic: String, timeout: Duration) throws(KafkaError) {
        do {
            _ = try consumer.partitionCount(topic: topic, timeout: timeout)
        } catch where error.code == KafkaError.Code.unknownTopicOrPartition || error.code == KafkaError.Code.unknownTopic {
            return
        }
    }
}
