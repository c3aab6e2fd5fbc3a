import Foundation
import Kafka
import Support

/// `kafka-tool broker`: hosts a mock Kafka cluster until SIGTERM/SIGINT.
enum BrokerCommand {
    static let spec = CommandSpec(
        name: "broker",
        summary: "Run a mock Kafka cluster; prints its bootstrap servers as the first line",
        options: [
            .value("brokers", "Number of brokers", default: "1"),
            .value("topic", "Create a topic, name:partitions", repeatable: true),
            .value("bootstrap-file", "Also write the bootstrap servers to this file"),
            .value("control", "Serve fault-injection commands on this Unix socket (see 'kafka-tool control')"),
        ])

    @Sendable static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { arguments in
            let logger = Logger(component: "broker")
            let brokers = try arguments.integer("brokers") ?? 1
            guard brokers > 0 else { throw UsageError.invalid("--brokers must be at least 1", spec.helpText) }
            let topics = try arguments.values("topic").map { text throws(UsageError) in
                let parts = text.split(separator: ":")
                guard parts.count == 2, let partitions = Int32(parts[1]), partitions > 0 else {
                    throw UsageError.invalid("--topic expects name:partitions, got '\(text)'", spec.helpText)
                }
                return (String(parts[0]), partitions)
            }
            let shutdown = ShutdownSignal()
            let cluster = try MockCluster(brokers: brokers)
            try cluster.createTopics(topics, replicationFactor: Int32(min(brokers, 3)))
            let control = try arguments.value("control").map { path throws(BrokerControlError) in
                try BrokerControlServer(cluster: cluster, path: path)
            }
            let bootstrap = cluster.bootstrapServers
            if let file = arguments.value("bootstrap-file") {
                try Data((bootstrap + "\n").utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
            }
            JSONLines.emitRaw(bootstrap)
            logger.info("mock cluster ready", ["bootstrap": bootstrap, "brokers": brokers])
            await shutdown.wait()
            control?.stop()
            logger.info("mock cluster stopping")
            return .success
        }
    }
}
