import Foundation
import Kafka
import Support

/// `kafka-tool bench relay`: messages travel through a chain of `kafka-tool relay` processes;
/// measures throughput, end-to-end latency and the relays' CPU time.
enum BenchCommand {
    static let spec = CommandSpec(
        name: "bench",
        summary: "Benchmark: 'bench relay' sends messages through a chain of relay processes",
        usage: "relay [options]",
        options: [
            ClientOptions.bootstrap.withHelp("Brokers to use (default: start a 1-broker mock cluster in this process)"),
            .value("hops", "Relay processes in the chain", default: "4"),
            .value("messages", "Messages to send", default: "5000"),
            .value("rate", "Messages per second offered", default: "500"),
            .value("payload-bytes", "Value size", default: "100"),
            .value("partitions", "Partitions per topic", default: "1"),
            .value("linger-ms", "Producer batching delay (every hop and the source)", default: "1"),
            .value("fetch-wait-max-ms", "Broker fetch wait (every hop and the sink)", default: "10"),
            .flag("no-baseline", "Do not run the raw C relay (relay-baseline) through the same hops afterwards"),
        ])

    static let sentAtHeader = "bench-sent-at-ns"

    @Sendable static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { arguments in
            guard arguments.positionals == ["relay"] else {
                throw UsageError.invalid("expected 'bench relay'", spec.helpText)
            }
            let settings = Settings(
                hops: try arguments.integer("hops") ?? 4,
                messages: try arguments.integer("messages") ?? 5000,
                rate: try arguments.integer("rate") ?? 500,
                payloadBytes: try arguments.integer("payload-bytes") ?? 100,
                partitions: Int32(try arguments.integer("partitions") ?? 1),
                lingerMilliseconds: try arguments.integer("linger-ms") ?? 1,
                fetchWaitMaxMilliseconds: try arguments.integer("fetch-wait-max-ms") ?? 10)
            guard settings.hops > 0, settings.messages > 0, settings.rate > 0, settings.partitions > 0 else {
                throw UsageError.invalid("--hops, --messages, --rate and --partitions must be positive", spec.helpText)
            }
            let result = try await RelayBenchmark(settings: settings, bootstrap: arguments.value("bootstrap"),
                                                    withRawBaseline: !arguments.flag("no-baseline")).run()
            print(result.report(settings))
            return result.received == settings.messages ? .success : .failure
        }
    }

    struct Settings {
        var hops: Int
        var messages: Int
        var rate: Int
        var payloadBytes: Int
        var partitions: Int32
        var lingerMilliseconds: Int
        var fetchWaitMaxMilliseconds: Int
    }
}

extension CommandSpec.Option {
    func withHelp(_ help: String) -> Self {
        var copy = self
        copy.help = help
        return copy
    }
}
