import Domain
import Kafka

/// One way a cluster's topics differ from the table (`Topic.all`).
public enum TopicDiscrepancy: Sendable, Hashable, CustomStringConvertible {
    case missing(topic: String)
    case partitions(topic: String, expected: Int, actual: Int)
    case replicationFactor(topic: String, expected: Int, actual: Int)
    /// A topic-level setting (`retention.ms`, `cleanup.policy`, `min.insync.replicas`) with another value, or none.
    case configuration(topic: String, key: String, expected: String, actual: String?)

    public var topic: String {
        switch self {
        case .missing(let topic), .partitions(let topic, _, _), .replicationFactor(let topic, _, _),
             .configuration(let topic, _, _, _): topic
        }
    }

    public var description: String {
        switch self {
        case .missing(let topic): "\(topic): missing"
        case .partitions(let topic, let expected, let actual): "\(topic): \(actual) partitions, expected \(expected)"
        case .replicationFactor(let topic, let expected, let actual): "\(topic): replication factor \(actual), expected \(expected)"
        case .configuration(let topic, let key, let expected, let actual):
            "\(topic): \(key) is \(actual ?? "not set"), expected \(expected)"
        }
    }

    /// Every difference between `table` replicated as `replication` and the cluster's `topics` with their
    /// `configurations` (by topic name), in the table's order.
    public static func between(
        _ table: [TopicSpec], replication: TopicReplication,
        topics: [TopicDescription], configurations: [String: [String: String]]
    ) -> [TopicDiscrepancy] {
        let described = Dictionary(topics.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return table.flatMap { spec -> [TopicDiscrepancy] in
            guard let topic = described[spec.name] else { return [.missing(topic: spec.name)] }
            var found: [TopicDiscrepancy] = []
            if topic.partitions != Int(spec.partitions) {
                found.append(.partitions(topic: spec.name, expected: Int(spec.partitions), actual: topic.partitions))
            }
            if topic.replicationFactor != Int(replication.factor) {
                found.append(.replicationFactor(topic: spec.name, expected: Int(replication.factor), actual: topic.replicationFactor))
            }
            let actual = configurations[spec.name] ?? [:]
            for (key, expected) in spec.configuration(replication).sorted(by: { $0.key < $1.key }) where actual[key] != expected {
                found.append(.configuration(topic: spec.name, key: key, expected: expected, actual: actual[key]))
            }
            return found
        }
    }
}

extension TopicSpec {
    /// The topic-level configuration to create the topic with: the table's, and `min.insync.replicas`.
    func configuration(_ replication: TopicReplication) -> [String: String] {
        configuration.merging([TopicReplication.minInsyncReplicasKey: String(replication.minInsyncReplicas)]) { own, _ in own }
    }
}
