import Foundation
import Support
@testable import TestSupport
import Testing

/// The registry's text exposition: what Prometheus parses, checked line by line and by `promtool`.
@Suite(.tags(.unit)) struct ExpositionTests {
    @Test func countersGaugesAndHistogramsAreWrittenInTheTextFormat() {
        let registry = MetricsRegistry()
        let handled = registry.counter("registrar_messages_handled_total", "Messages handled", labels: ["topic", "result"])
        handled.increment("auth.requests", "handled")
        handled.increment("auth.requests", "handled", by: 2)
        handled.increment("image.commands", "dead_lettered")
        registry.gauge("registrar_consumer_lag_messages", "Lag", labels: ["partition"]).set(7, "3")
        let durations = registry.histogram("registrar_handling_duration_seconds", "Durations", buckets: [0.1, 1])
        durations.observe(0.05)
        durations.observe(0.5)
        durations.observe(4)

        #expect(registry.exposition() == """
            # HELP registrar_consumer_lag_messages Lag
            # TYPE registrar_consumer_lag_messages gauge
            registrar_consumer_lag_messages{partition="3"} 7
            # HELP registrar_handling_duration_seconds Durations
            # TYPE registrar_handling_duration_seconds histogram
            registrar_handling_duration_seconds_bucket{le="0.1"} 1
            registrar_handling_duration_seconds_bucket{le="1"} 2
            registrar_handling_duration_seconds_bucket{le="+Inf"} 3
            registrar_handling_duration_seconds_sum 4.55
            registrar_handling_duration_seconds_count 3
            # HELP registrar_messages_handled_total Messages handled
            # TYPE registrar_messages_handled_total counter
            registrar_messages_handled_total{topic="auth.requests",result="handled"} 3
            registrar_messages_handled_total{topic="image.commands",result="dead_lettered"} 1

            """)
    }

    @Test func declaredSeriesAreExportedAtZeroUntilRecorded() {
        let registry = MetricsRegistry()
        let retries = registry.counter("registrar_retries_total", "Retries", labels: ["step"])
        retries.declare("WriteProfile")
        let durations = registry.histogram("registrar_handling_duration_seconds", "Durations", labels: ["topic"], buckets: [1])
        durations.declare("auth.requests")
        #expect(registry.exposition().contains("registrar_retries_total{step=\"WriteProfile\"} 0\n"))
        #expect(registry.exposition().contains("registrar_handling_duration_seconds_bucket{topic=\"auth.requests\",le=\"+Inf\"} 0\n"))
        #expect(registry.exposition().contains("registrar_handling_duration_seconds_count{topic=\"auth.requests\"} 0\n"))
        retries.increment("WriteProfile")
        retries.declare("WriteProfile")
        durations.observe(0.5, "auth.requests")
        durations.declare("auth.requests")
        #expect(registry.exposition().contains("registrar_retries_total{step=\"WriteProfile\"} 1\n"), "declaring again keeps the count")
        #expect(registry.exposition().contains("registrar_handling_duration_seconds_count{topic=\"auth.requests\"} 1\n"))
    }

    @Test func labelValuesAreEscaped() {
        let registry = MetricsRegistry()
        registry.counter("odd_total", "Help with \\ and\nnewline", labels: ["value"]).increment("a\"b\\c\nd")
        #expect(registry.exposition().contains(#"odd_total{value="a\"b\\c\nd"} 1"#))
        #expect(registry.exposition().contains(#"# HELP odd_total Help with \\ and\nnewline"#))
    }

    @Test func aGaugeReadsItsSourcesAtEachExpositionUntilTheyStop() {
        let registry = MetricsRegistry()
        let lag = registry.gauge("lag_messages", "Lag", labels: ["worker", "partition"])
        lag.collect(from: "a") { [["a", "0"]: 2, ["a", "1"]: 0] }
        lag.collect(from: "b") { [["b", "0"]: 9] }
        #expect(registry.exposition().contains("lag_messages{worker=\"a\",partition=\"0\"} 2\nlag_messages{worker=\"a\",partition=\"1\"} 0\nlag_messages{worker=\"b\",partition=\"0\"} 9\n"))
        lag.stopCollecting(from: "a")
        #expect(!registry.exposition().contains("worker=\"a\""))
        #expect(registry.exposition().contains("lag_messages{worker=\"b\",partition=\"0\"} 9"))
    }

    @Test func aFamilyDeclaredTwiceAlikeIsTheSameFamily() {
        let registry = MetricsRegistry()
        registry.counter("twice_total", "Twice").increment()
        registry.counter("twice_total", "Twice").increment()
        #expect(registry.exposition().contains("twice_total 2"))
    }

    /// Prometheus' own linter (`promtool check metrics`, Debian `prometheus`) accepts the exposition.
    @Test func promtoolAcceptsTheExposition() async throws {
        let registry = MetricsRegistry()
        registry.counter("registrar_dead_letters_total", "Dead letters by reason", labels: ["reason"]).increment("not_json")
        registry.histogram("registrar_argon2id_duration_seconds", "argon2id").observe(0.02)
        registry.gauge("registrar_sagas", "Sagas by stage", labels: ["stage"]).set(2, "awaiting_image")
        let promtool = try ChildProcess("/usr/bin/promtool", ["check", "metrics"], input: .pipe, output: .captured, errors: .standardOutput)
        promtool.write(Array(registry.exposition().utf8))
        promtool.closeInput()
        var lines: [String] = []
        while let line = await promtool.nextLine() { lines.append(line) }
        #expect(await promtool.waitForExit() == 0, "promtool: \(lines)")
        #expect(lines.isEmpty, "promtool found problems: \(lines)")
    }
}
