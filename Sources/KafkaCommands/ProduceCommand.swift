import Foundation
import Kafka
import Support

/// `kafka-tool produce`: sends `--value`, or each line of standard input, and prints a JSON line per
/// delivery report.
enum ProduceCommand {
    static let spec = CommandSpec(
        name: "produce",
        summary: "Produce --value or each stdin line; prints a JSON delivery report per message",
        options: ClientOptions.common + [
            .value("topic", "Topic to write to"),
            .value("key", "Message key"),
            .value("value", "Message value (otherwise one message per line of standard input)"),
            .value("header", "Header key=value", repeatable: true),
            .value("partition", "Explicit partition (otherwise chosen from the key)"),
            .value("key-separator", "Split each input line at the first separator into key and value"),
            .flag("base64", "--key, --value, header values and input lines are base64"),
            .value("delivery-timeout-ms", "Give up on a message after this long", default: "30000"),
            .value("linger-ms", "Batching delay", default: "5"),
        ])

    @Sendable static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { arguments in
            let logger = Logger(component: "produce")
            var configuration = try ClientOptions.configuration(arguments, spec: spec, logger: logger)
            configuration.deliveryTimeout = try ClientOptions.milliseconds(arguments, "delivery-timeout-ms") ?? .seconds(30)
            configuration.linger = try ClientOptions.milliseconds(arguments, "linger-ms") ?? .milliseconds(5)
            let topic = try arguments.required("topic")
            let base64 = arguments.flag("base64")
            func bytes(_ text: String, _ what: String) throws(UsageError) -> [UInt8] {
                guard base64 else { return Array(text.utf8) }
                guard let data = Data(base64Encoded: text) else {
                    throw .invalid("\(what) is not valid base64: '\(text)'", spec.helpText)
                }
                return Array(data)
            }
            let key = try arguments.value("key").map { text throws(UsageError) in try bytes(text, "--key") }
            let headers = try arguments.values("header").map { text throws(UsageError) in
                guard let equals = text.firstIndex(of: "=") else {
                    throw .invalid("--header expects key=value, got '\(text)'", spec.helpText)
                }
                return KafkaHeader(key: String(text[..<equals]), value: try bytes(String(text[text.index(after: equals)...]), "--header"))
            }
            let partition = try arguments.value("partition", as: "a partition number") { Int32($0) }
            func message(_ value: [UInt8], key: [UInt8]? = key) -> OutgoingMessage {
                OutgoingMessage(topic: topic, key: key, value: value, headers: headers, partition: partition)
            }
            let separator = arguments.value("key-separator")
            func message(line: String) throws(UsageError) -> OutgoingMessage {
                guard let separator, let range = line.range(of: separator) else {
                    return message(try bytes(line, "an input line"))
                }
                return message(
                    try bytes(String(line[range.upperBound...]), "an input value"),
                    key: try bytes(String(line[..<range.lowerBound]), "an input key"))
            }

            let producer = try KafkaProducer(configuration: configuration)
            var failures = 0
            if let value = arguments.value("value") {
                do {
                    emit(try await producer.send(message(try bytes(value, "--value"))))
                } catch let error as KafkaError {
                    failures += 1
                    emit(DeliveryReport(messageID: 0, topic: topic, partition: -1, offset: -1, error: error))
                }
            } else {
                // Enqueued in input order; reports are printed as they come.
                let reports = producer.deliveryReports
                let printer = Task {
                    var failures = 0
                    for await report in reports {
                        emit(report)
                        if report.error != nil { failures += 1 }
                    }
                    return failures
                }
                for await line in StandardInput.lines() {
                    try await producer.enqueue(message(line: line))
                }
                try? await producer.flush(timeout: configuration.deliveryTimeout + .seconds(5))
                await producer.close()
                failures = await printer.value
            }
            await producer.close()
            return failures == 0 ? .success : .failure
        }
    }

    private static func emit(_ report: DeliveryReport) {
        if let error = report.error {
            JSONLines.emit(["event": "failed", "topic": report.topic, "error": error.description, "code": error.name])
            Logger(component: "produce").error("delivery failed: \(error)", ["topic": report.topic])
        } else {
            JSONLines.emit([
                "event": "delivered", "topic": report.topic, "partition": Int(report.partition), "offset": report.offset,
            ])
        }
    }
}
