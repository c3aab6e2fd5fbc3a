internal import CRDKafka
import Foundation

/// A consumed message.
public struct KafkaMessage: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]
    public var headers: [KafkaHeader]
    /// The producer's (or the broker's log-append) time, if the message carries one.
    public var timestamp: Date?

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]? = nil, value: [UInt8],
        headers: [KafkaHeader] = [], timestamp: Date? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }

    /// The value of the last header named `key`, or nil if absent or null.
    public func header(_ key: String) -> [UInt8]? {
        headers.last { $0.key == key }?.value
    }

    /// The key decoded as UTF-8, or nil if absent or not valid UTF-8.
    public var keyString: String? {
        key.flatMap { String(validating: $0, as: UTF8.self) }
    }
}

extension KafkaMessage {
    /// Copies a successful `rd_kafka_message_t` (which the caller still owns and destroys) of `topic`.
    init(copying message: UnsafePointer<rd_kafka_message_t>, topic: String) {
        let raw = message.pointee
        self.topic = topic
        partition = raw.partition
        offset = raw.offset
        key = raw.key.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.key_len)) }
        value = raw.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: raw.len)) } ?? []
        headers = Self.headers(of: message)
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let milliseconds = rd_kafka_message_timestamp(message, &timestampType)
        timestamp = milliseconds >= 0 ? Date(timeIntervalSince1970: Double(milliseconds) / 1000) : nil
    }

    private static func headers(of message: UnsafePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        // The header list belongs to the message; it is not destroyed here.
        var list: OpaquePointer?
        guard rd_kafka_message_headers(message, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        var result: [KafkaHeader] = []
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        var index = 0
        while rd_kafka_header_get_all(list, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            result.append(KafkaHeader(
                key: name.map { String(cString: $0) } ?? "",
                value: value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }))
            index += 1
        }
        return result
    }
}
