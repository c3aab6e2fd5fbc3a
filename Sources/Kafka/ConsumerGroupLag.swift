/// How far a consumer group is behind on its topics: its committed offset on each partition against the
/// partition's end (the high watermark).
public struct ConsumerGroupLag: Sendable {
    public struct Partition: Sendable {
        public var topicPartition: TopicPartition
        /// The group's committed offset; nil when it never committed on the partition.
        public var committed: Int64?
        public var end: Int64
        /// Messages the group has not yet committed: from its committed offset (or the partition's start) to the end.
        public var lag: Int64

        /// A partition from `low` to `end`, on which the group committed `committed`.
        public init(_ topicPartition: TopicPartition, committed: Int64?, low: Int64, end: Int64) {
            self.topicPartition = topicPartition
            self.committed = committed
            self.end = end
            lag = max(0, end - max(committed ?? low, low))
        }
    }

    public var group: String
    public var partitions: [Partition]
    public var total: Int64 { partitions.reduce(0) { $0 + $1.lag } }

    public init(group: String, partitions: [Partition]) {
        self.group = group
        self.partitions = partitions
    }

    /// Reads `group`'s lag on every partition of `topics` without joining the group. Blocks the caller,
    /// each request for at most `timeout`.
    public static func read(group: String, topics: [String], configuration: KafkaConfiguration,
                            timeout: Duration = .seconds(5)) throws(KafkaError) -> ConsumerGroupLag {
        var configuration = configuration
        configuration.groupID = group
        let consumer = try KafkaConsumer(configuration: configuration, assignment: [])
        defer { consumer.close() }
        var marks: [(TopicPartition, low: Int64, high: Int64)] = []
        for topic in topics {
            for partition in 0..<Int32(try consumer.partitionCount(topic: topic, timeout: timeout)) {
                let (low, high) = try consumer.watermarks(topic: topic, partition: partition, timeout: timeout)
                marks.append((TopicPartition(topic: topic, partition: partition), low, high))
            }
        }
        let committed = try consumer.committedOffsets(marks.map(\.0), timeout: timeout)
        return ConsumerGroupLag(group: group, partitions: marks.map { partition, low, high in
            Partition(partition, committed: committed[partition], low: low, end: high)
        })
    }
}
