import Foundation
import Kafka
import Support
import EventTransport

/// `--json`: a command's answer as one JSON object on standard output, for scripts (keys sorted, one line).
public enum JSONOutput {
    public static let option = CommandSpec.Option.flag("json", "Print the answer as one JSON object on a line, for scripts")

    public static func print(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        Swift.print(String(decoding: data, as: UTF8.self))
    }

    /// A time as ISO 8601 with milliseconds, or null.
    public static func time(_ date: Date?) -> Any {
        guard let date else { return NSNull() }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// A snapshot's completeness: `complete`, and the partitions not read to their end.
    public static func completeness(_ snapshot: TopicSnapshot) -> [String: Any] {
        ["complete": snapshot.isComplete, "unfinishedPartitions": snapshot.unfinished.map { "\($0.topic)/\($0.partition)" }]
    }
}

/// A command's answer read from topics under a time limit: after printing what it read, the command fails (exit 1)
/// saying that the answer is partial when some partition was not read to its end in time.
public enum PartialAnswer {
    public static func timeoutOption(_ what: String) -> CommandSpec.Option {
        .value("timeout", "Seconds to read \(what) for; past it the answer is partial (said, exit 1)", default: "10")
    }

    /// Throws the failure saying `snapshot` is partial; nothing when it is complete.
    public static func check(_ snapshot: TopicSnapshot, within timeout: Duration) throws {
        guard !snapshot.isComplete else { return }
        let partitions = snapshot.unfinished.map { "\($0.topic)/\($0.partition)" }
        throw CommandFailure("partial answer: \(partitions.count) of \(snapshot.ends.count) partitions were not read to their end "
                             + "within \(timeout.components.seconds) s (\(partitions.prefix(5).joined(separator: ", "))\(partitions.count > 5 ? ", …" : ""))")
    }
}
