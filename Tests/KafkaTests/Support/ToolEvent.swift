import Foundation
@testable import TestSupport

/// One JSON line printed by `kafka-tool` (`message`, `assigned`, `committed`, `delivered`, …).
struct ToolEvent: Decodable, Sendable, Hashable {
    struct Header: Decodable, Sendable, Hashable {
        var key: String
        var value: String?
        var value_base64: String?

        var bytes: [UInt8]? { decode(text: value, base64: value_base64) }
    }

    struct Partition: Decodable, Sendable, Hashable {
        var topic: String
        var partition: Int32
    }

    var event: String
    var topic: String?
    var partition: Int32?
    var offset: Int64?
    var key: String?
    var key_base64: String?
    var value: String?
    var value_base64: String?
    var headers: [Header]?
    var partitions: [Partition]?
    var error: String?
    var code: String?

    var keyBytes: [UInt8]? { decode(text: key, base64: key_base64) }
    var valueBytes: [UInt8]? { decode(text: value, base64: value_base64) }
    /// Identifies a message in the log.
    var position: String { "\(topic ?? "?")/\(partition ?? -1)/\(offset ?? -1)" }
}

private func decode(text: String?, base64: String?) -> [UInt8]? {
    if let text { return Array(text.utf8) }
    return base64.flatMap { Data(base64Encoded: $0) }.map(Array.init)
}

extension Array where Element == UInt8 {
    var base64: String { Data(self).base64EncodedString() }
}
