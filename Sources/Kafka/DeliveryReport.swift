/// The outcome of producing one message.
public struct DeliveryReport: Sendable, Hashable {
    /// The identifier `KafkaProducer.enqueue` returned for the message.
    public var messageID: UInt64
    public var topic: String
    public var partition: Int32
    /// The message's offset in the partition, or -1 if it was not written.
    public var offset: Int64
    /// Why the message was not delivered, or nil if it was.
    public var error: KafkaError?

    public init(messageID: UInt64, topic: String, partition: Int32, offset: Int64, error: KafkaError?) {
        self.messageID = messageID
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.error = error
    }
}
