internal import CRDKafka

extension KafkaConsumer {
    /// The offsets this consumer's group has committed on `partitions` (the next offset it will read), asked of
    /// the group's coordinator; partitions it committed nothing on are left out. Blocks for at most `timeout`.
    public func committedOffsets(of partitions: [TopicPartition], timeout: Duration) throws(KafkaError) -> [TopicPartition: Int64] {
        let list = TopicPartitionList(capacity: partitions.count)
        for partition in partitions { list.add(topic: partition.topic, partition: partition.partition) }
        try KafkaError.check(rd_kafka_committed(clientPointer, list.pointer, Int32(timeout.timeoutMilliseconds)))
        if let error = list.firstError { throw error }
        var offsets: [TopicPartition: Int64] = [:]
        for element in TopicPartitionList.elements(of: list.pointer) where element.offset >= 0 {
            offsets[TopicPartition(topic: String(cString: element.topic), partition: element.partition)] = element.offset
        }
        return offsets
    }
}
