/// A message header: a key and optional bytes. Keys may repeat within a message.
public struct KafkaHeader: Sendable, Hashable {
    public var key: String
    public var value: [UInt8]?

    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }

    /// A header whose value is the UTF-8 encoding of `value`.
    public init(key: String, value: String) {
        self.init(key: key, value: Array(value.utf8))
    }
}
