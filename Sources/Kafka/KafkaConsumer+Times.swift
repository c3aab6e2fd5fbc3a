internal import CRDKafka
import Foundation

extension KafkaConsumer {
    /// The first offset at or after `time` on each of `partitions` (ListOffsets by timestamp, Kafka 0.10.1+); a
    /// partition with no message that recent is left out. Asked of the leaders; blocks for at most `timeout`.
    /// librdkafka's mock cluster cannot look offsets up by time.
    public func offsets(at time: Date, of partitions: [TopicPartition], timeout: Duration) throws(KafkaError) -> [TopicPartition: Int64] {
        let list = TopicPartitionList(capacity: partitions.count)
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.down))
        for partition in partitions { list.add(topic: partition.topic, partition: partition.partition, offset: milliseconds) }
        try KafkaError.check(rd_kafka_offsets_for_times(clientPointer, list.pointer, timeout.timeoutMilliseconds))
        if let error = list.firstError { throw error }
        var offsets: [TopicPartition: Int64] = [:]
        for element in TopicPartitionList.elements(of: list.pointer) where element.offset >= 0 {
            offsets[TopicPartition(topic: String(cString: element.topic), partition: element.partition)] = element.offset
        }
        return offsets
    }
}
