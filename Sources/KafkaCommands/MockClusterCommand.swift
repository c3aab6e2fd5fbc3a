import Kafka

/// One fault-injection or setup command for a `MockCluster`, in the one-line text form the
/// control socket speaks (e.g. `broker-down 1`, `rtt 1 50`, `request-errors 0 6,6`).
public enum MockClusterCommand: Sendable, Hashable {
    case brokerDown(Int32)
    case brokerUp(Int32)
    /// Response delay of a broker, in milliseconds.
    case roundTripTime(broker: Int32, milliseconds: Int)
    /// Error codes for the next requests with an API key (0 Produce, 1 Fetch, 3 Metadata, 8 OffsetCommit…).
    case requestErrors(apiKey: Int16, errors: [Int32])
    case clearRequestErrors(apiKey: Int16)
    case createTopic(name: String, partitions: Int32, replicationFactor: Int32)
    case partitionLeader(topic: String, partition: Int32, broker: Int32)

    /// Parses a command line; the error text says what was expected.
    public init(line: String) throws(BrokerControlError) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        func int<T: FixedWidthInteger>(_ index: Int, _ what: String) throws(BrokerControlError) -> T {
            guard index < words.count, let value = T(words[index]) else {
                throw BrokerControlError("\(words.first ?? "command"): expected \(what)")
            }
            return value
        }
        func word(_ index: Int, _ what: String) throws(BrokerControlError) -> String {
            guard index < words.count else { throw BrokerControlError("\(words[0]): expected \(what)") }
            return words[index]
        }
        switch words.first {
        case "broker-down": self = .brokerDown(try int(1, "broker ID"))
        case "broker-up": self = .brokerUp(try int(1, "broker ID"))
        case "rtt": self = .roundTripTime(broker: try int(1, "broker ID"), milliseconds: try int(2, "milliseconds"))
        case "request-errors":
            let codes = try word(2, "error codes").split(separator: ",").map { Int32($0) }
            guard !codes.isEmpty, codes.allSatisfy({ $0 != nil }) else {
                throw BrokerControlError("request-errors: expected comma-separated error codes")
            }
            self = .requestErrors(apiKey: try int(1, "API key"), errors: codes.map { $0! })
        case "clear-request-errors": self = .clearRequestErrors(apiKey: try int(1, "API key"))
        case "create-topic":
            self = .createTopic(
                name: try word(1, "topic name"), partitions: try int(2, "partition count"),
                replicationFactor: words.count > 3 ? try int(3, "replication factor") : 1)
        case "leader":
            self = .partitionLeader(
                topic: try word(1, "topic"), partition: try int(2, "partition"), broker: try int(3, "broker ID"))
        default:
            throw BrokerControlError(
                "unknown command '\(words.first ?? "")' (expected broker-down, broker-up, rtt, request-errors, "
                    + "clear-request-errors, create-topic, leader)")
        }
    }

    /// The command's text form.
    public var line: String {
        switch self {
        case .brokerDown(let id): "broker-down \(id)"
        case .brokerUp(let id): "broker-up \(id)"
        case .roundTripTime(let id, let milliseconds): "rtt \(id) \(milliseconds)"
        case .requestErrors(let apiKey, let errors): "request-errors \(apiKey) " + errors.map(String.init).joined(separator: ",")
        case .clearRequestErrors(let apiKey): "clear-request-errors \(apiKey)"
        case .createTopic(let name, let partitions, let factor): "create-topic \(name) \(partitions) \(factor)"
        case .partitionLeader(let topic, let partition, let broker): "leader \(topic) \(partition) \(broker)"
        }
    }

    /// Carries out the command on `cluster`.
    public func apply(to cluster: MockCluster) throws(KafkaError) {
        switch self {
        case .brokerDown(let id): try cluster.setBrokerDown(id)
        case .brokerUp(let id): try cluster.setBrokerUp(id)
        case .roundTripTime(let id, let milliseconds): try cluster.setRoundTripTime(broker: id, .milliseconds(milliseconds))
        case .requestErrors(let apiKey, let errors): cluster.pushRequestErrors(apiKey: apiKey, errors: errors)
        case .clearRequestErrors(let apiKey): cluster.clearRequestErrors(apiKey: apiKey)
        case .createTopic(let name, let partitions, let factor):
            try cluster.createTopic(name, partitions: partitions, replicationFactor: factor)
        case .partitionLeader(let topic, let partition, let broker):
            try cluster.setPartitionLeader(topic: topic, partition: partition, broker: broker)
        }
    }
}

/// A control command that could not be sent, parsed or carried out.
public struct BrokerControlError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
