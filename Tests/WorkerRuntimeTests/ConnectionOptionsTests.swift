import EventTransport
import Foundation
import Kafka
import Support
@testable import TestSupport
import Testing
import WorkerRuntime

/// `--kafka-property` and `KAFKA_PROPERTIES` carry secrets (`sasl.password`): values keep their commas, and
/// no error shows any part of one.
@Suite(.tags(.unit)) struct ConnectionOptionsTests {
    let spec = CommandSpec(name: "tool", summary: "test", options: ConnectionOptions.specs)

    func options(_ arguments: [String], environment: [String: String] = [:]) throws -> ConnectionOptions {
        try ConnectionOptions(ParsedArguments(["--bootstrap", "127.0.0.1:1"] + arguments, spec: spec, environment: environment))
    }

    @Test func anOptionsValueKeepsItsCommas() throws {
        let parsed = try options(["--kafka-property", "sasl.password=a,b=c,d", "--kafka-property", "bootstrap.servers=x:1,y:2"])
        #expect(parsed.kafkaProperties == ["sasl.password": "a,b=c,d", "bootstrap.servers": "x:1,y:2"])
    }

    @Test func theEnvironmentsListKeepsCommasInsideValues() throws {
        let parsed = try options([], environment: ["KAFKA_PROPERTIES": "sasl.username=u,sasl.password=p4ss,w0rd,bootstrap.servers=x:1,y:2"])
        #expect(parsed.kafkaProperties == ["sasl.username": "u", "sasl.password": "p4ss,w0rd", "bootstrap.servers": "x:1,y:2"])
    }

    @Test func errorsShowNoPartOfAnyValue() {
        let cases: [([String], [String: String], [String])] = [
            (["--kafka-property", "Canary,Secret"], [:], ["Canary", "Secret"]),
            (["--kafka-property", "=Canary"], [:], ["Canary"]),
            ([], ["KAFKA_PROPERTIES": "Canary,sasl.password=Secret"], ["Canary", "Secret"]),
        ]
        for (arguments, environment, fragments) in cases {
            let error = #expect(throws: UsageError.self) { try options(arguments, environment: environment) }
            guard case .invalid(let problem, _)? = error else { continue }
            #expect(problem.contains("not name=value"))
            for fragment in fragments { #expect(!problem.contains(fragment), "\(problem)") }
        }
    }

    @Test func librdkafkasRefusalShowsNoValue() throws {
        let parsed = try options(["--kafka-property", "security.protocol=Canary,Secret"])
        let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: parsed.kafka(clientID: "test")) }
        let text = "\(String(describing: error))"
        #expect(text.contains("security.protocol"), "\(text)")
        #expect(!text.contains("Canary") && !text.contains("Secret"), "\(text)")
    }
}

/// `--kafka-properties-file`: the SASL credentials come from a mounted file, never argv.
@Suite(.tags(.unit)) struct KafkaPropertiesFileTests {
    let spec = CommandSpec(name: "tool", summary: "test", options: ConnectionOptions.specs)

    @Test func aFilesLinesAreProperties() throws {
        try withFile("# client\nsasl.username=u\n\nsasl.password=p4ss,w0rd= \nsecurity.protocol=SASL_SSL\n") { path in
            let parsed = try ConnectionOptions(ParsedArguments(["--bootstrap", "127.0.0.1:1", "--kafka-properties-file", path,
                                                                "--kafka-property", "security.protocol=SSL"], spec: spec, environment: [:]))
            #expect(parsed.kafkaProperties == ["sasl.username": "u", "sasl.password": "p4ss,w0rd= ", "security.protocol": "SSL"])
        }
    }

    @Test func aBadLineShowsNoText() throws {
        try withFile("sasl.username=u\nCanarySecret\n") { path in
            let error = #expect(throws: UsageError.self) { try options(path) }
            #expect(!"\(String(describing: error))".contains("Canary"))
        }
    }

    @Test func aFileOthersCouldReadIsRefused() throws {
        try withFile("sasl.password=p\n", mode: 0o644) { path in
            let error = #expect(throws: UsageError.self) { try options(path) }
            #expect("\(String(describing: error))".contains("has mode 0644"))
        }
    }

    private func options(_ path: String) throws -> ConnectionOptions {
        try ConnectionOptions(ParsedArguments(["--bootstrap", "127.0.0.1:1", "--kafka-properties-file", path], spec: spec, environment: [:]))
    }

    /// Runs `body` with a temporary file holding `text` with `mode`.
    private func withFile(_ text: String, mode: mode_t = 0o600, _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kafka-\(UUID().uuidString).properties").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode)
        try body(path)
    }
}
