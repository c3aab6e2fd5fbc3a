import Foundation
import Kafka
import Synchronization

/// Writes one JSON object per line on standard output, unbuffered, so that another process reading
/// the pipe sees each line as soon as it is written.
enum JSONLines {
    private static let lock = Mutex(())

    static func emit(_ object: [String: Any]) {
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        line.append(0x0A)
        lock.withLock { _ in FileHandle.standardOutput.write(line) }
    }

    /// Writes `text` and a newline as is.
    static func emitRaw(_ text: String) {
        lock.withLock { _ in FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    }

    /// A consumed message: `key`/`value`/header `value` as text when valid UTF-8 (and `base64` is
    /// false), otherwise as `key_base64`/`value_base64`.
    static func object(for message: KafkaMessage, base64: Bool) -> [String: Any] {
        var object: [String: Any] = [
            "event": "message", "topic": message.topic, "partition": Int(message.partition), "offset": message.offset,
        ]
        if let key = message.key { put(key, as: "key", in: &object, base64: base64) }
        put(message.value, as: "value", in: &object, base64: base64)
        object["headers"] = message.headers.map { header -> [String: Any] in
            var entry: [String: Any] = ["key": header.key]
            if let value = header.value { put(value, as: "value", in: &entry, base64: base64) } else { entry["value"] = NSNull() }
            return entry
        }
        if let timestamp = message.timestamp { object["timestamp_ms"] = Int64(timestamp.timeIntervalSince1970 * 1000) }
        return object
    }

    static func object(for partitions: [TopicPartition], event: String) -> [String: Any] {
        ["event": event, "partitions": partitions.map { ["topic": $0.topic, "partition": Int($0.partition)] }]
    }

    private static func put(_ bytes: [UInt8], as name: String, in object: inout [String: Any], base64: Bool) {
        if !base64, let text = String(validating: bytes, as: UTF8.self) {
            object[name] = text
        } else {
            object[name + "_base64"] = Data(bytes).base64EncodedString()
        }
    }
}
