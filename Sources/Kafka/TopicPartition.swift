/// One partition of a topic.
public struct TopicPartition: Sendable, Hashable, CustomStringConvertible {
    public var topic: String
    public var partition: Int32

    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public var description: String { "\(topic)[\(partition)]" }
}

/// A position in a partition to start reading from.
public enum KafkaOffset: Sendable, Hashable {
    /// The oldest message still in the log.
    case beginning
    /// Only messages produced from now on.
    case end
    /// The group's committed offset (falls back to `autoOffsetReset`).
    case stored
    /// An absolute offset.
    case offset(Int64)
}

/// A partition and where to start reading it, for `KafkaConsumer(configuration:assignment:)`.
public struct TopicPartitionOffset: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    public var offset: KafkaOffset

    public init(topic: String, partition: Int32, offset: KafkaOffset) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}
