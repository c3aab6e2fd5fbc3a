import Foundation
import Synchronization

/// Structured logs: one JSON object per line on standard error (or another file descriptor) with
/// `time`, `level`, `component`, `message` and context fields (topic, partition, offset, registration_id, …).
///
/// A line that cannot be written (a full disk, a closed descriptor) is dropped: logging never stops a worker.
///
/// Never pass secrets (passwords, codes, tokens) as a message or field.
public struct Logger: Sendable {
    public enum Level: String, Sendable, Comparable {
        case debug, info, warning, error

        private var rank: Int { [.debug: 0, .info: 1, .warning: 2, .error: 3][self]! }
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
    }

    /// Context fields; values are strings, integers, booleans or doubles.
    public typealias Fields = [String: any Sendable]

    public var component: String
    public var fields: Fields
    public var minimumLevel: Level
    /// Where the lines go.
    public var fileDescriptor: Int32

    /// A logger for `component` writing to `fileDescriptor` (standard error by default); the minimum
    /// level comes from `LOG_LEVEL` (default `info`).
    public init(component: String, fields: Fields = [:], fileDescriptor: Int32 = STDERR_FILENO) {
        self.component = component
        self.fields = fields
        self.fileDescriptor = fileDescriptor
        self.minimumLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Level.init(rawValue:)) ?? .info
    }

    /// A logger that adds `extra` fields to every line.
    public func with(_ extra: Fields) -> Logger {
        var copy = self
        copy.fields.merge(extra) { _, new in new }
        return copy
    }

    public func debug(_ message: String, _ extra: Fields = [:]) { log(.debug, message, extra) }
    public func info(_ message: String, _ extra: Fields = [:]) { log(.info, message, extra) }
    public func warning(_ message: String, _ extra: Fields = [:]) { log(.warning, message, extra) }
    public func error(_ message: String, _ extra: Fields = [:]) { log(.error, message, extra) }

    /// Writes one line if `level` is at or above the minimum level.
    public func log(_ level: Level, _ message: String, _ extra: Fields = [:]) {
        guard level >= minimumLevel else { return }
        var object = fields.merging(extra, uniquingKeysWith: { _, new in new })
        object["time"] = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        object["level"] = level.rawValue
        object["component"] = component
        object["message"] = message
        var line = Self.json(object)
        line.append(0x0A)
        Self.output.withLock { _ in Self.write(line, to: fileDescriptor) }
    }

    private static let output = Mutex(())

    /// Writes all of `bytes` with write(2), which reports a failure instead of trapping as
    /// `FileHandle.write(_:)` does; on a failure the rest of the line is dropped.
    private static func write(_ bytes: [UInt8], to fileDescriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// `object` as one JSON object, keys sorted, written directly: `JSONSerialization` took most of
    /// a worker's CPU outside its steps (a line per message handled).
    private static func json(_ object: Fields) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(256)
        for (index, key) in object.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            switch object[key]! {
            case let value as String: appendString(value, to: &bytes)
            case let value as Bool: bytes += Array((value ? "true" : "false").utf8)
            case let value as Int: bytes += Array(String(value).utf8)
            case let value as Int32: bytes += Array(String(value).utf8)
            case let value as Int64: bytes += Array(String(value).utf8)
            case let value as UInt64: bytes += Array(String(value).utf8)
            case let value as Double where value.isFinite: bytes += Array(String(value).utf8)
            case let value: appendString(String(describing: value), to: &bytes)
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Appends `text` as a JSON string: quotes, backslashes and control characters escaped.
    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "\n"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: bytes += Array(String(format: "\\u%04x", byte).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
