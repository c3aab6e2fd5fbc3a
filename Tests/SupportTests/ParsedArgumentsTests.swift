@testable import Support
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct ParsedArgumentsTests {
    let spec = CommandSpec(name: "tool", summary: "test", options: [
        .value("bootstrap", "brokers", environment: "KAFKA_BOOTSTRAP_SERVERS", default: "localhost:9092"),
        .value("topic", "topics", repeatable: true),
        .value("count", "how many"),
        .flag("verbose", "more output"),
    ])

    @Test func acceptsBothValueSpellings() throws {
        let parsed = try ParsedArguments(["--bootstrap", "a:1", "--topic=x", "--topic", "y", "--verbose", "file"], spec: spec, environment: [:])
        #expect(parsed.value("bootstrap") == "a:1")
        #expect(parsed.values("topic") == ["x", "y"])
        #expect(parsed.flag("verbose"))
        #expect(parsed.positionals == ["file"])
    }

    @Test func fallsBackToEnvironmentThenDefault() throws {
        #expect(try ParsedArguments([], spec: spec, environment: ["KAFKA_BOOTSTRAP_SERVERS": "env:9"]).value("bootstrap") == "env:9")
        #expect(try ParsedArguments([], spec: spec, environment: [:]).value("bootstrap") == "localhost:9092")
        #expect(try ParsedArguments(["--bootstrap=cli:1"], spec: spec, environment: ["KAFKA_BOOTSTRAP_SERVERS": "env:9"]).value("bootstrap") == "cli:1")
    }

    @Test func reportsUsageErrors() {
        #expect(throws: UsageError.self) { try ParsedArguments(["--nope"], spec: spec, environment: [:]) }
        #expect(throws: UsageError.self) { try ParsedArguments(["--count"], spec: spec, environment: [:]) }
        #expect(throws: UsageError.self) { try ParsedArguments(["--count", "1", "--count", "2"], spec: spec, environment: [:]) }
        #expect(throws: UsageError.self) { try ParsedArguments(["--verbose=yes"], spec: spec, environment: [:]) }
        #expect(throws: UsageError.self) { try ParsedArguments(["--count", "x"], spec: spec, environment: [:]).integer("count") }
    }

    @Test func helpIsNotAnError() {
        do {
            _ = try ParsedArguments(["--help"], spec: spec, environment: [:])
            Issue.record("no help")
        } catch {
            guard case .helpRequested(let text) = error else { Issue.record("wrong error"); return }
            #expect(text.contains("--bootstrap"))
            #expect(text.contains("KAFKA_BOOTSTRAP_SERVERS"))
        }
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try ParsedArguments(["--", "--verbose"], spec: spec, environment: [:])
        #expect(!parsed.flag("verbose"))
        #expect(parsed.positionals == ["--verbose"])
    }
}
