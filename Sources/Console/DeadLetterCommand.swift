import Domain
import EventTransport
import Foundation
import Kafka
import Support

/// `registrar dlq list|show|replay`: inspect dead-lettered messages and send them back to their topic.
public enum DeadLetterCommand {
    public static let spec = CommandSpec(
        name: "registrar dlq", summary: "inspect and replay dead-lettered messages",
        usage: "list | show <dlq-topic> <partition>:<offset> | replay (<dlq-topic> <partition>:<offset> | --all) [options]",
        options: [
            .value("topic", "Only this dead-letter topic (e.g. registration.requests.dlq)"),
            .value("reason", "Only letters with this dlq.reason (e.g. not_json, step_failed)"),
            .flag("all", "replay: every listed letter"),
        ] + ConnectionOptions.specs)

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let connection = try ConnectionOptions(parsed)
            let kafka = connection.kafka(clientID: "registrar-dlq")
            let action = try parsed.positional(0, "action: list, show or replay")
            var letters = try await TopicSnapshot.read(parsed.value("topic").map { [$0] } ?? topics, configuration: kafka)
            if let reason = parsed.value("reason") { letters = letters.filter { text($0, "dlq.reason") == reason } }
            switch action {
            case "list":
                for letter in letters {
                    print("\(letter.topic) \(letter.partition):\(letter.offset)  \(text(letter, "dlq.reason") ?? "?")  from \(text(letter, "dlq.topic") ?? "?")@\(text(letter, "dlq.offset") ?? "?") by \(text(letter, "dlq.worker") ?? "?"): \(text(letter, "dlq.error") ?? "")")
                }
                print("\(letters.count) dead letter\(letters.count == 1 ? "" : "s")")
                return .success
            case "show":
                let letter = try select(letters, parsed)
                for header in letter.headers { print("\(header.key): \(header.value.map { String(decoding: $0, as: UTF8.self) } ?? "")") }
                print("key: \(letter.keyString ?? "")")
                print(String(validating: letter.value, as: UTF8.self) ?? "base64: " + Data(letter.value).base64EncodedString())
                return .success
            case "replay":
                let chosen = parsed.flag("all") ? letters : [try select(letters, parsed)]
                try await replay(chosen, kafka: kafka).forEach { print($0) }
                return .success
            default:
                throw UsageError.invalid("unknown action '\(action)'", spec.helpText)
            }
        }
    }

    /// Sends each of `letters` back to the topic it was dead-lettered from (its original key, value and
    /// headers, and where it was replayed from); one line per letter saying where it went.
    static func replay(_ letters: [KafkaMessage], kafka: KafkaConfiguration) async throws -> [String] {
        let producer = try KafkaProducer(configuration: kafka)
        var lines: [String] = []
        for letter in letters {
            guard let topic = text(letter, "dlq.topic") else { continue }
            let headers = letter.headers.filter { !$0.key.hasPrefix("dlq.") }
                + [KafkaHeader(key: "dlq.replayed-from", value: Array("\(letter.topic):\(letter.partition):\(letter.offset)".utf8))]
            _ = try await producer.send(OutgoingMessage(topic: topic, key: letter.key, value: letter.value, headers: headers))
            lines.append("replayed \(letter.topic) \(letter.partition):\(letter.offset) to \(topic)")
        }
        await producer.close()
        return lines
    }

    /// Every dead-letter topic.
    static let topics = Topic.inputs.map(Topic.deadLetters(of:))

    private static func select(_ letters: [KafkaMessage], _ parsed: ParsedArguments) throws -> KafkaMessage {
        let topic = try parsed.positional(1, "dead-letter topic")
        let position = try parsed.positional(2, "partition:offset").split(separator: ":")
        guard position.count == 2, let partition = Int32(position[0]), let offset = Int64(position[1]) else {
            throw UsageError.invalid("expected partition:offset, e.g. 0:12", spec.helpText)
        }
        guard let letter = letters.first(where: { $0.topic == topic && $0.partition == partition && $0.offset == offset }) else {
            throw UsageError.invalid("no dead letter at \(topic) \(partition):\(offset)", spec.helpText)
        }
        return letter
    }

    /// The text of `message`'s header `header`.
    static func text(_ message: KafkaMessage, _ header: String) -> String? {
        message.header(header).map { String(decoding: $0, as: UTF8.self) }
    }
}
