internal import CRDKafka

extension KafkaConsumer {
    /// How many messages this consumer is behind on each partition it holds: the partition's end as last
    /// fetched (no broker round trip) less the next offset it will read. Partitions it has not read from yet
    /// are left out. Empty once closed.
    public func lag() -> [TopicPartition: Int64] {
        guard !isClosing else { return [:] }
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(clientPointer, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let assignment else { return [:] }
        defer { rd_kafka_topic_partition_list_destroy(assignment) }
        guard rd_kafka_position(clientPointer, assignment) == RD_KAFKA_RESP_ERR_NO_ERROR else { return [:] }
        var lags: [TopicPartition: Int64] = [:]
        for element in TopicPartitionList.elements(of: assignment) where element.offset >= 0 {
            var low: Int64 = -1
            var high: Int64 = -1
            guard rd_kafka_get_watermark_offsets(clientPointer, element.topic, element.partition, &low, &high)
                    == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0 else { continue }
            lags[TopicPartition(topic: String(cString: element.topic), partition: element.partition)] = max(0, high - element.offset)
        }
        return lags
    }
}
