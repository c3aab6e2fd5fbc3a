/// One topic as a cluster must hold it: its partitions and the configuration every deployment shares.
/// Replication is a deployment parameter (`TopicReplication`), not part of the table.
public struct TopicSpec: Sendable, Hashable {
    /// Kafka's `cleanup.policy`.
    public enum CleanupPolicy: String, Sendable {
        case delete, compact
    }

    /// How long a topic keeps its messages (Kafka's `retention.ms`).
    public struct Retention: Sendable, Hashable {
        public var milliseconds: Int64

        public static func days(_ days: Int64) -> Retention { Retention(milliseconds: days * 24 * 3600 * 1000) }
    }

    public var name: String
    public var partitions: Int32
    public var retention: Retention
    public var cleanupPolicy: CleanupPolicy

    public init(_ name: String, partitions: Int32, retention: Retention, cleanupPolicy: CleanupPolicy = .delete) {
        self.name = name
        self.partitions = partitions
        self.retention = retention
        self.cleanupPolicy = cleanupPolicy
    }

    /// The topic-level configuration the table prescribes, by Kafka's names.
    public var configuration: [String: String] {
        [Self.retentionKey: String(retention.milliseconds), Self.cleanupPolicyKey: cleanupPolicy.rawValue]
    }

    public static let retentionKey = "retention.ms"
    public static let cleanupPolicyKey = "cleanup.policy"
}

/// How a deployment replicates every topic: one broker locally, three or more (with
/// `min.insync.replicas` 2) on a real cluster.
public struct TopicReplication: Sendable, Hashable {
    public var factor: Int32
    /// Kafka's `min.insync.replicas`: how many replicas must have a write before `acks=all` succeeds.
    public var minInsyncReplicas: Int32

    public init(factor: Int32 = 1, minInsyncReplicas: Int32 = 1) {
        self.factor = factor
        self.minInsyncReplicas = minInsyncReplicas
    }

    public static let minInsyncReplicasKey = "min.insync.replicas"
}
