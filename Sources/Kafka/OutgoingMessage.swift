/// A message to produce.
public struct OutgoingMessage: Sendable {
    public var topic: String
    /// Decides the partition (same key, same partition) unless `partition` is set.
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// An explicit partition; nil lets the partitioner choose from the key.
    public var partition: Int32?

    public init(
        topic: String, key: [UInt8]? = nil, value: [UInt8], headers: [KafkaHeader] = [], partition: Int32? = nil
    ) {
        self.topic = topic
        self.key = key
        self.value = value
        self.headers = headers
        self.partition = partition
    }

    /// A message with a UTF-8 key.
    public init(
        topic: String, key: String, value: [UInt8], headers: [KafkaHeader] = [], partition: Int32? = nil
    ) {
        self.init(topic: topic, key: Array(key.utf8), value: value, headers: headers, partition: partition)
    }
}
