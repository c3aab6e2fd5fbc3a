import Kafka
import Support

/// The options every command that talks to Kafka shares, and the configuration they make.
enum ClientOptions {
    static let bootstrap = CommandSpec.Option.value(
        "bootstrap", "Brokers, host:port[,host:port…]", environment: "KAFKA_BOOTSTRAP_SERVERS")
    static let common: [CommandSpec.Option] = [
        bootstrap,
        .value("client-id", "Client ID", default: "kafka-tool"),
        .value("property", "Any librdkafka property, name=value", repeatable: true),
    ]

    /// A configuration from `--bootstrap`, `--client-id` and `--property`; librdkafka's errors and
    /// logs go to `logger`.
    static func configuration(
        _ arguments: ParsedArguments, spec: CommandSpec, logger: Logger
    ) throws(UsageError) -> KafkaConfiguration {
        var configuration = KafkaConfiguration(
            bootstrapServers: try arguments.required("bootstrap"),
            clientID: arguments.value("client-id") ?? "kafka-tool")
        configuration.properties = try KafkaConfiguration.parseProperties(arguments.values("property"), separatedByCommas: false)
        configuration.log(to: logger)
        return configuration
    }

    /// `--name` as a duration in milliseconds.
    static func milliseconds(_ arguments: ParsedArguments, _ name: String) throws(UsageError) -> Duration? {
        try arguments.integer(name).map { .milliseconds($0) }
    }
}
