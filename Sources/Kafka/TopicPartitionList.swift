internal import CRDKafka

/// Owns an `rd_kafka_topic_partition_list_t` for the duration of one call.
struct TopicPartitionList: ~Copyable {
    let pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    init(capacity: Int) {
        pointer = rd_kafka_topic_partition_list_new(Int32(clamping: capacity))
    }

    deinit { rd_kafka_topic_partition_list_destroy(pointer) }

    func add(topic: String, partition: Int32, offset: Int64? = nil) {
        let element = rd_kafka_topic_partition_list_add(pointer, topic, partition)!
        if let offset { element.pointee.offset = offset }
    }

    /// The elements of a list librdkafka lent to a callback (not owned).
    static func elements(
        of list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>
    ) -> UnsafeMutableBufferPointer<rd_kafka_topic_partition_t> {
        UnsafeMutableBufferPointer(start: list.pointee.elems, count: Int(list.pointee.cnt))
    }

    static func topicPartitions(of list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) -> [TopicPartition] {
        elements(of: list).map { TopicPartition(topic: String(cString: $0.topic), partition: $0.partition) }
    }

    /// The first per-partition error, if any.
    var firstError: KafkaError? {
        Self.elements(of: pointer).lazy.compactMap { KafkaError($0.err) }.first
    }
}

extension KafkaOffset {
    var rawValue: Int64 {
        switch self {
        case .beginning: Int64(RD_KAFKA_OFFSET_BEGINNING)
        case .end: Int64(RD_KAFKA_OFFSET_END)
        case .stored: Int64(RD_KAFKA_OFFSET_STORED)
        case .offset(let value): value
        }
    }
}
