import Foundation
import Kafka
import Support

/// The raw C librdkafka relay (`relay-baseline`, built beside `kafka-tool` from the project's C baseline) run
/// through as many hops, on the same broker, at the same rate and message count as the Swift relays.
struct RawRelayBaseline {
    struct Result {
        var received: Int
        var throughput: Double
        var p50: Double
        var p99: Double
        /// CPU time of each stage process while the driver's messages went through.
        var hopCPU: [Duration]

        /// The average over the hops, in seconds per 1,000 messages.
        var cpuPerThousand: Double { RelayBenchmark.Result.perThousand(hopCPU, received: received).average }
    }

    static var executable: String { (ChildProcess.currentExecutable as NSString).deletingLastPathComponent + "/relay-baseline" }

    let settings: BenchCommand.Settings

    /// Runs the stages and the driver on `servers`, creating the chain's topics in `cluster` when it is the bench's own.
    func run(servers: String, cluster: MockCluster?, runID: String) async throws -> Result {
        let topics = (0...settings.hops).map { "bench-\(runID)-raw-\($0)" }
        try cluster?.createTopics(topics.map { ($0, settings.partitions) })
        let environment = ["LINGER": String(settings.lingerMilliseconds), "FW": String(settings.fetchWaitMaxMilliseconds)]
        let stages = try (0..<settings.hops).map {
            try ChildProcess(Self.executable, ["stage", servers, topics[$0], topics[$0 + 1]], environment: environment,
                             output: .discarded, errors: .discarded)
        }
        defer { for stage in stages { stage.send(SIGTERM) } }
        // The stages print nothing: give their group joins the time the baseline's README gives them.
        try await Task.sleep(for: .seconds(3))
        let driver = try ChildProcess(Self.executable, ["driver", servers, topics[0], topics[settings.hops],
                                                        String(settings.messages), String(settings.rate)], environment: environment,
                                  errors: .discarded)
        guard await driver.nextLine() == "ready" else { throw KafkaError(code: KafkaError.Code.timedOut, message: "the raw relay driver did not start") }
        let before = stages.map { $0.cpuTime ?? .zero }
        let line = await driver.nextLine() ?? ""
        let after = stages.map { $0.cpuTime ?? .zero }
        _ = await driver.waitForExit()
        for stage in stages { await stage.stop() }
        // sent=N got=N elapsed=S throughput=R/s p50=Xms p99=Yms max=Zms
        let fields = Dictionary(line.split(separator: " ").compactMap { pair -> (String, Double)? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            return (String(parts[0]), Double(parts[1].trimmingCharacters(in: .letters.union(CharacterSet(charactersIn: "/")))) ?? 0)
        }) { first, _ in first }
        guard let received = fields["got"] else { throw KafkaError(code: KafkaError.Code.timedOut, message: "the raw relay driver printed no result: \(line)") }
        return Result(received: Int(received), throughput: fields["throughput"] ?? 0, p50: fields["p50"] ?? 0, p99: fields["p99"] ?? 0,
                      hopCPU: zip(before, after).map { $1 - $0 })
    }
}
