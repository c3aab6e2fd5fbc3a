import Domain
import EventTransport
import Foundation
import Kafka
import Support

/// `registrar dlq list|show|replay`: inspect dead-lettered messages and send them back to their topic.
public enum DeadLetterCommand {
    public static let spec = CommandSpec(
        name: "registrar dlq", summary: "inspect and replay dead-lettered messages",
        usage: "list | show <dlq-topic> <partition>:<offset> | replay (<dlq-topic> <partition>:<offset> | --all) [--json] [options]",
        options: [
            .value("topic", "Only this dead-letter topic (e.g. registration.requests.dlq)"),
            .value("reason", "Only letters with this dlq.reason (e.g. not_json, step_failed)"),
            .flag("all", "replay: every listed letter"),
            PartialAnswer.timeoutOption("the dead-letter topics"),
            JSONOutput.option,
        ] + ConnectionOptions.commandSpecs)

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let connection = try ConnectionOptions(parsed, quietUnlessVerbose: true)
            let kafka = connection.kafka(clientID: "registrar-dlq")
            let action = try parsed.positional(0, "action: list, show or replay")
            guard ["list", "show", "replay"].contains(action) else { throw UsageError.invalid("unknown action '\(action)'", spec.helpText) }
            let chosen = parsed.value("topic").map { [$0] } ?? topics
            if let unknown = chosen.first(where: { !topics.contains($0) }) {
                throw UsageError.invalid("\(unknown) is no dead-letter topic: \(topics.joined(separator: ", "))", spec.helpText)
            }
            let timeout = Duration.seconds(try parsed.integer("timeout") ?? 10)
            return try await connection.explainingBrokerTrouble {
                let snapshot = try await TopicSnapshot.take(chosen, configuration: kafka, timeout: timeout)
                var letters = snapshot.messages
                if let reason = parsed.value("reason") { letters = letters.filter { text($0, "dlq.reason") == reason } }
                switch action {
                case "list":
                    list(letters, snapshot: snapshot, json: parsed.flag("json"))
                case "show":
                    show(try select(letters, parsed, snapshot: snapshot), json: parsed.flag("json"))
                default:
                    try PartialAnswer.check(snapshot, within: timeout)
                    let replayed = parsed.flag("all") ? letters : [try select(letters, parsed, snapshot: snapshot)]
                    try await replay(replayed, kafka: kafka).forEach { print($0) }
                }
                try PartialAnswer.check(snapshot, within: timeout)
                return .success
            }
        }
    }

    private static func list(_ letters: [KafkaMessage], snapshot: TopicSnapshot, json: Bool) {
        guard !json else {
            var answer: [String: Any] = ["count": letters.count, "letters": letters.map(describe)]
            answer.merge(JSONOutput.completeness(snapshot)) { $1 }
            return JSONOutput.print(answer)
        }
        for letter in letters {
            print("\(letter.topic) \(letter.partition):\(letter.offset)  \(text(letter, "dlq.reason") ?? "?")  from \(text(letter, "dlq.topic") ?? "?")@\(text(letter, "dlq.offset") ?? "?") by \(text(letter, "dlq.worker") ?? "?"): \(text(letter, "dlq.error") ?? "")")
        }
        print("\(letters.count) dead letter\(letters.count == 1 ? "" : "s")")
    }

    /// A letter as `dlq list --json` shows it.
    private static func describe(_ letter: KafkaMessage) -> [String: Any] {
        let header = { (name: String) -> Any in text(letter, name) ?? NSNull() }
        var described: [String: Any] = ["topic": letter.topic, "partition": letter.partition, "offset": letter.offset]
        described["time"] = JSONOutput.time(letter.timestamp)
        described["key"] = letter.keyString ?? NSNull()
        described["reason"] = header("dlq.reason")
        described["from"] = ["topic": header("dlq.topic"), "offset": header("dlq.offset")]
        described["worker"] = header("dlq.worker")
        described["error"] = header("dlq.error")
        described["replaysTo"] = inputTopic(ofDeadLetterTopic: letter.topic) ?? NSNull()
        return described
    }

    private static func show(_ letter: KafkaMessage, json: Bool) {
        let value = String(validating: letter.value, as: UTF8.self)
        guard !json else {
            var described = describe(letter)
            described["headers"] = Dictionary(letter.headers.map { ($0.key, $0.value.map { String(decoding: $0, as: UTF8.self) } ?? "") }) { $1 }
            described[value == nil ? "valueBase64" : "value"] = value ?? Data(letter.value).base64EncodedString()
            return JSONOutput.print(described)
        }
        for header in letter.headers { print("\(header.key): \(header.value.map { String(decoding: $0, as: UTF8.self) } ?? "")") }
        print("key: \(letter.keyString ?? "")")
        print(value ?? "base64: " + Data(letter.value).base64EncodedString())
    }

    /// Sends each of `letters` back to the input topic its dead-letter topic belongs to (`<topic>.dlq` → `<topic>`,
    /// whatever its `dlq.topic` header says), with its key, value and headers and where it was replayed from; one
    /// line per letter saying where it went. A message on any other topic is not replayed.
    static func replay(_ letters: [KafkaMessage], kafka: KafkaConfiguration) async throws -> [String] {
        let producer = try KafkaProducer(configuration: kafka)
        var lines: [String] = []
        for letter in letters {
            guard let topic = inputTopic(ofDeadLetterTopic: letter.topic) else {
                lines.append("not replayed \(letter.topic) \(letter.partition):\(letter.offset): not a dead-letter topic")
                continue
            }
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

    /// The input topic whose dead letters `topic` holds; nil when `topic` is no dead-letter topic.
    static func inputTopic(ofDeadLetterTopic topic: String) -> String? {
        Topic.inputs.first { Topic.deadLetters(of: $0) == topic }
    }

    private static func select(_ letters: [KafkaMessage], _ parsed: ParsedArguments, snapshot: TopicSnapshot) throws -> KafkaMessage {
        let topic = try parsed.positional(1, "dead-letter topic")
        let position = try parsed.positional(2, "partition:offset").split(separator: ":")
        guard position.count == 2, let partition = Int32(position[0]), let offset = Int64(position[1]) else {
            throw UsageError.invalid("expected partition:offset, e.g. 0:12", spec.helpText)
        }
        guard let letter = letters.first(where: { $0.topic == topic && $0.partition == partition && $0.offset == offset }) else {
            throw CommandFailure("no dead letter at \(topic) \(partition):\(offset)"
                                 + (snapshot.isComplete ? "" : " among those read (the answer is partial: see --timeout)"))
        }
        return letter
    }

    /// The text of `message`'s header `header`.
    static func text(_ message: KafkaMessage, _ header: String) -> String? {
        message.header(header).map { String(decoding: $0, as: UTF8.self) }
    }
}
