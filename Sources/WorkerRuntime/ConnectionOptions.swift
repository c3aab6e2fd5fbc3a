import Foundation
import Kafka
import Support

/// The options every Registrar binary shares: where the broker and the data are.
///
/// The broker address comes from `--bootstrap`, `KAFKA_BOOTSTRAP_SERVERS`, or else the file
/// `<data-dir>/broker.bootstrap` that `registrar broker --data-dir` writes. Any librdkafka property
/// (TLS, SASL, tuning) passes through `--kafka-property name=value` or `KAFKA_PROPERTIES`
/// (comma-separated `name=value` pairs).
public struct ConnectionOptions: Sendable {
    public var bootstrapServers: String
    public var dataDirectory: String
    public var kafkaProperties: [String: String]

    /// The options' specs, to add to a command's own.
    public static let specs: [CommandSpec.Option] = [
        .value("bootstrap", "Kafka bootstrap servers, host:port[,host:port…]", environment: "KAFKA_BOOTSTRAP_SERVERS"),
        .value("data-dir", "Directory of the embedded stores (SQLite, files, keys)", environment: "REGISTRAR_DATA_DIR", default: "data"),
        .value("kafka-property", "Any librdkafka property as name=value", environment: "KAFKA_PROPERTIES", repeatable: true),
    ]

    /// The file a local broker started with `--data-dir` leaves its address in.
    public static func bootstrapFile(in dataDirectory: String) -> String { dataDirectory + "/broker.bootstrap" }

    public init(_ arguments: ParsedArguments) throws(UsageError) {
        dataDirectory = arguments.value("data-dir") ?? "data"
        if let servers = arguments.value("bootstrap") {
            bootstrapServers = servers
        } else if let text = try? String(contentsOfFile: Self.bootstrapFile(in: dataDirectory), encoding: .utf8),
                  !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            bootstrapServers = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            throw .invalid("no broker: give --bootstrap, set KAFKA_BOOTSTRAP_SERVERS, or start `registrar broker --data-dir \(dataDirectory)`", "")
        }
        kafkaProperties = [:]
        for pair in arguments.values("kafka-property").flatMap({ $0.split(separator: ",") }) {
            guard let equals = pair.firstIndex(of: "=") else {
                throw .invalid("--kafka-property expects name=value, got '\(pair)'", "")
            }
            kafkaProperties[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
    }

    /// A Kafka configuration for a client named `clientID`.
    public func kafka(clientID: String) -> KafkaConfiguration {
        var configuration = KafkaConfiguration(bootstrapServers: bootstrapServers, clientID: clientID)
        configuration.properties = kafkaProperties
        configuration.log(to: Logger(component: clientID))
        return configuration
    }
}
