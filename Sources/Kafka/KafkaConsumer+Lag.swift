internal import CRDKafka

extension KafkaConsumer {
    /// How many messages this consumer is behind on each partition it holds: the partition's end as last
    /// fetched (no broker round trip) less the next offset it will read. On a partition it has not read from
    /// yet, that offset is its group's committed one (asked of the coordinator, for at most `timeout`), or the
    /// partition's start when the group never committed there. A partition whose end was not fetched yet, or
    /// whose committed offset did not come in time, is left out. Empty once closed.
    public func lag(timeout: Duration = .milliseconds(500)) -> [TopicPartition: Int64] {
        guard !isClosing else { return [:] }
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(clientPointer, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let assignment else { return [:] }
        defer { rd_kafka_topic_partition_list_destroy(assignment) }
        guard rd_kafka_position(clientPointer, assignment) == RD_KAFKA_RESP_ERR_NO_ERROR else { return [:] }
        var lags: [TopicPartition: Int64] = [:]
        var unread: [TopicPartition: (low: Int64, high: Int64)] = [:]
        for element in TopicPartitionList.elements(of: assignment) {
            var low: Int64 = -1
            var high: Int64 = -1
            guard rd_kafka_get_watermark_offsets(clientPointer, element.topic, element.partition, &low, &high)
                    == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0 else { continue }
            let partition = TopicPartition(topic: String(cString: element.topic), partition: element.partition)
            if element.offset >= 0 { lags[partition] = max(0, high - element.offset) } else { unread[partition] = (low, high) }
        }
        guard !unread.isEmpty, let committed = try? committedOffsets(Array(unread.keys), timeout: timeout) else { return lags }
        for (partition, marks) in unread { lags[partition] = max(0, marks.high - max(committed[partition] ?? 0, marks.low, 0)) }
        return lags
    }
}

extension KafkaConsumer {
    /// The oldest and next offsets of `partition` as last fetched by this consumer (no broker round trip); nil until
    /// it has fetched the partition.
    public func fetchedWatermarks(of partition: TopicPartition) -> (low: Int64, high: Int64)? {
        guard !isClosing else { return nil }
        var low: Int64 = -1
        var high: Int64 = -1
        guard rd_kafka_get_watermark_offsets(clientPointer, partition.topic, partition.partition, &low, &high) == RD_KAFKA_RESP_ERR_NO_ERROR,
              high >= 0 else { return nil }
        return (max(low, 0), high)
    }
}
