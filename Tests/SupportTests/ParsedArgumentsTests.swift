import Foundation
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

    @Test func aPositiveIntegerIsAboveZeroAndFitsItsType() throws {
        #expect(try ParsedArguments(["--count", "7"], spec: spec, environment: [:]).positiveInteger("count") == 7)
        #expect(try ParsedArguments([], spec: spec, environment: [:]).positiveInteger("count") == nil)
        for refused in ["0", "-3", "x", "2147483648"] {
            let error = #expect(throws: UsageError.self) {
                try ParsedArguments(["--count", refused], spec: spec, environment: [:]).positiveInteger("count", as: Int32.self)
            }
            #expect(error?.description.contains("--count expects a positive whole number, got '\(refused)'") == true, "\(String(describing: error))")
        }
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

    @Test func versionIsAsked() {
        do {
            _ = try ParsedArguments(["--bootstrap", "b:1", "--version"], spec: spec, environment: [:])
            Issue.record("no version")
        } catch {
            guard case .versionRequested = error else { Issue.record("wrong error: \(error)"); return }
        }
    }

    @Test func processUsageReadsThisProcess() throws {
        let usage = try #require(ProcessUsage(pid: getpid()))
        #expect(usage.residentBytes > 0 && usage.virtualBytes >= usage.residentBytes)
        #expect(abs(usage.startTime.timeIntervalSinceNow) < 24 * 3600, "started today: \(usage.startTime)")
        #expect((usage.openDescriptors ?? 0) >= 3, "stdin, stdout, stderr at least")
        #expect(ProcessUsage.descriptorLimit >= 256)
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try ParsedArguments(["--", "--verbose"], spec: spec, environment: [:])
        #expect(!parsed.flag("verbose"))
        #expect(parsed.positionals == ["--verbose"])
    }
}
