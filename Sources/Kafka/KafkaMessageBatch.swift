internal import CRDKafka
import Foundation

/// The messages one trip of a consumer's polling thread took, lent to a `KafkaConsumer.consume(batches:)` handler
/// without copying: each message is a view into librdkafka's buffers, valid only until the handler returns.
/// Copy what must outlive it (`KafkaMessageView.copy()`, or the bytes in `withValue`).
public struct KafkaMessageBatch: RandomAccessCollection {
    private let messages: UnsafeBufferPointer<UnsafeMutablePointer<rd_kafka_message_t>>
    private let topicNames: TopicNames

    init(_ messages: UnsafeBufferPointer<UnsafeMutablePointer<rd_kafka_message_t>>, topicNames: TopicNames) {
        self.messages = messages
        self.topicNames = topicNames
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { messages.count }
    public subscript(position: Int) -> KafkaMessageView {
        KafkaMessageView(messages[position], topicNames: topicNames)
    }
}

/// One consumed message, read in place (see `KafkaMessageBatch`); it must not be kept past the handler.
public struct KafkaMessageView {
    let pointer: UnsafePointer<rd_kafka_message_t>
    private let topicNames: TopicNames

    init(_ pointer: UnsafeMutablePointer<rd_kafka_message_t>, topicNames: TopicNames) {
        self.pointer = UnsafePointer(pointer)
        self.topicNames = topicNames
    }

    /// The topic's name (one `String` per topic, kept by the consumer: reading it allocates nothing).
    public var topic: String { topicNames.name(of: pointer.pointee.rkt) }
    public var partition: Int32 { pointer.pointee.partition }
    public var offset: Int64 { pointer.pointee.offset }

    /// Runs `body` with the key's bytes, nil when the message has no key.
    public func withKey<Result>(_ body: (UnsafeRawBufferPointer?) throws -> Result) rethrows -> Result {
        let raw = pointer.pointee
        return try body(raw.key.map { UnsafeRawBufferPointer(start: $0, count: raw.key_len) })
    }

    /// Runs `body` with the value's bytes (empty for a null value).
    public func withValue<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let raw = pointer.pointee
        return try body(UnsafeRawBufferPointer(start: raw.payload, count: raw.payload == nil ? 0 : raw.len))
    }

    /// The message copied out of librdkafka's buffers, to keep.
    public func copy() -> KafkaMessage {
        KafkaMessage(copying: pointer, topic: topic)
    }
}

/// The names of the topics a client has read from, by librdkafka topic handle, so that each is made into a
/// `String` once. Used by one thread at a time (the client's polling thread).
final class TopicNames: @unchecked Sendable {
    private var entries: [(handle: OpaquePointer, name: String)] = []

    func name(of handle: OpaquePointer?) -> String {
        guard let handle else { return "" }
        let text = rd_kafka_topic_name(handle)!
        // A handle's memory may be reused for another topic once released: the name is compared too.
        if let entry = entries.first(where: { $0.handle == handle && $0.name.withCString { strcmp($0, text) == 0 } }) {
            return entry.name
        }
        let name = String(cString: text)
        entries.removeAll { $0.handle == handle }
        entries.append((handle, name))
        return name
    }
}
