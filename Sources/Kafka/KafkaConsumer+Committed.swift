internal import CRDKafka

extension KafkaConsumer {
    /// The offsets its group (`groupID`) has committed on `partitions`, asked of the group coordinator;
    /// a partition the group never committed on is left out. Joins nothing. Blocks for at most `timeout`.
    public func committedOffsets(_ partitions: [TopicPartition], timeout: Duration) throws(KafkaError) -> [TopicPartition: Int64] {
        let list = TopicPartitionList(capacity: partitions.count)
        for partition in partitions { list.add(topic: partition.topic, partition: partition.partition) }
        try KafkaError.check(rd_kafka_committed(clientPointer, list.pointer, timeout.timeoutMilliseconds))
        var offsets: [TopicPartition: Int64] = [:]
        for element in TopicPartitionList.elements(of: list.pointer) where element.err == RD_KAFKA_RESP_ERR_NO_ERROR && element.offset >= 0 {
            offsets[TopicPartition(topic: String(cString: element.topic), partition: element.partition)] = element.offset
        }
        return offsets
    }
}
