import Foundation
import Kafka
import Support
import Synchronization

/// One run of `kafka-tool bench relay`.
struct RelayBenchmark {
    struct Result {
        var received: Int
        var elapsed: Duration
        /// End-to-end latencies, sorted.
        var latencies: [Duration]
        /// CPU time of each hop process while the messages went through.
        var hopCPU: [Duration]

        /// The raw C relay's figures, measured in the same run.
        var raw: RawRelayBaseline.Result?
        var loadBefore = LoadAverage.now
        var loadAfter = LoadAverage.now

        func report(_ settings: BenchCommand.Settings) -> String {
            func ms(_ duration: Duration) -> String { String(format: "%.1f ms", duration.timeInterval * 1000) }
            func percentile(_ p: Double) -> Duration {
                latencies.isEmpty ? .zero : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
            }
            let throughput = Double(received) / max(elapsed.timeInterval, 0.001)
            let (perThousand, average) = Self.perThousand(hopCPU, received: received)
            let perHop = perThousand.enumerated().map { "hop \($0.offset + 1): " + String(format: "%.3f s", $0.element) }
            var lines = [
                "relay benchmark: \(settings.hops) hops, \(settings.messages) messages of \(settings.payloadBytes) bytes "
                    + "offered at \(settings.rate)/s, linger \(settings.lingerMilliseconds) ms, fetch wait \(settings.fetchWaitMaxMilliseconds) ms",
                "\(loadBefore) before, \(loadAfter) after",
                "delivered: \(received)/\(settings.messages) in " + String(format: "%.2f s = %.1f msg/s", elapsed.timeInterval, throughput),
                "latency end to end: p50 \(ms(percentile(0.5))), p99 \(ms(percentile(0.99))), max \(ms(latencies.last ?? .zero))",
                "CPU per 1,000 messages per hop: " + String(format: "%.3f s", average) + " (" + perHop.joined(separator: ", ") + ")",
            ]
            if let raw {
                let rawHops = Self.perThousand(raw.hopCPU, received: raw.received).each.map { String(format: "%.3f s", $0) }
                lines += [
                    "raw C relay (relay-baseline), same broker, rate and count: delivered \(raw.received)/\(settings.messages) = "
                        + String(format: "%.1f msg/s; p50 %.1f ms, p99 %.1f ms", raw.throughput, raw.p50, raw.p99),
                    "raw C CPU per 1,000 messages per hop: " + String(format: "%.3f s", raw.cpuPerThousand) + " (" + rawHops.joined(separator: ", ") + ")",
                    String(format: "ratio Swift / raw C: CPU per message per hop %.2f×, p99 %.2f×", average / max(raw.cpuPerThousand, 0.000_001),
                           percentile(0.99).timeInterval * 1000 / max(raw.p99, 0.001)),
                ]
            }
            return lines.joined(separator: "\n")
        }

        /// Each hop's CPU seconds per 1,000 of `received` messages, and their average.
        static func perThousand(_ cpu: [Duration], received: Int) -> (each: [Double], average: Double) {
            let each = cpu.map { $0.timeInterval * 1000 / Double(max(received, 1)) }
            return (each, each.reduce(0, +) / Double(max(each.count, 1)))
        }
    }

    let settings: BenchCommand.Settings
    let bootstrap: String?
    /// Whether the raw C relay runs too, after the Swift one.
    let withRawBaseline: Bool

    func run() async throws -> Result {
        let logger = Logger(component: "bench")
        let cluster = bootstrap == nil ? try MockCluster(brokers: 1) : nil
        let servers = bootstrap ?? cluster!.bootstrapServers
        let runID = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let topics = (0...settings.hops).map { "bench-\(runID)-\($0)" }
        try cluster?.createTopics(topics.map { ($0, settings.partitions) })

        let tuning: [String] = [
            "--linger-ms", String(settings.lingerMilliseconds),
            "--fetch-wait-max-ms", String(settings.fetchWaitMaxMilliseconds),
        ]
        let hops = try (0..<settings.hops).map { (index: Int) throws -> ChildProcess in
            let name = "bench-\(runID)-hop\(index + 1)"
            let route: [String] = ["--from", topics[index], "--to", topics[index + 1]]
            let arguments: [String] = ["relay", "--bootstrap", servers, "--group", name, "--client-id", name] + route + tuning
            return try ChildProcess(ChildProcess.currentExecutable, arguments, environment: ["LOG_LEVEL": "warning"])
        }
        do {
            var result = try await measure(hops: hops, servers: servers, topics: topics, logger: logger)
            for hop in hops { await hop.stop() }
            if withRawBaseline {
                result.raw = try await RawRelayBaseline(settings: settings).run(servers: servers, cluster: cluster, runID: runID)
            }
            result.loadAfter = .now
            return result
        } catch {
            for hop in hops { await hop.stop() }
            throw error
        }
    }

    private func measure(hops: [ChildProcess], servers: String, topics: [String], logger: Logger) async throws -> Result {
        for (index, hop) in hops.enumerated() {
            guard await Self.waitForAssignment(hop) else {
                throw KafkaError(code: KafkaError.Code.timedOut, message: "relay hop \(index + 1) did not join its group")
            }
        }
        logger.info("relays ready", ["hops": hops.count])

        var configuration = KafkaConfiguration(bootstrapServers: servers, clientID: "bench")
        configuration.linger = .milliseconds(settings.lingerMilliseconds)
        configuration.fetchWaitMax = .milliseconds(settings.fetchWaitMaxMilliseconds)
        configuration.errorHandler = { logger.warning("kafka: \($0)") }
        let sink = try KafkaConsumer(configuration: configuration, assignment: (0..<settings.partitions).map {
            TopicPartitionOffset(topic: topics.last!, partition: $0, offset: .beginning)
        })
        let producer = try KafkaProducer(configuration: configuration)
        try await warmUp(producer: producer, sink: sink, source: topics[0])

        let loadBefore = LoadAverage.now
        let cpuBefore = hops.map { $0.cpuTime ?? .zero }
        let start = ContinuousClock.now
        let receiver = Task { try await receive(from: sink) }
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: settings.payloadBytes)
        let interval = Duration.seconds(1) / settings.rate
        for index in 0..<settings.messages {
            try await Task.sleep(until: start + interval * index, clock: .continuous)
            let sentAt = Array(String(Self.wallClockNanoseconds()).utf8)
            try await producer.enqueue(OutgoingMessage(
                topic: topics[0], key: String(index), value: payload,
                headers: [KafkaHeader(key: BenchCommand.sentAtHeader, value: sentAt)]))
        }
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            sink.close()
        }
        let (latencies, finished) = try await receiver.value
        deadline.cancel()
        let cpuAfter = hops.map { $0.cpuTime ?? .zero }
        sink.close()
        await producer.close()
        return Result(
            received: latencies.count, elapsed: finished - start, latencies: latencies.sorted(),
            hopCPU: zip(cpuBefore, cpuAfter).map { $1 - $0 }, loadBefore: loadBefore)
    }

    /// Sends one message through the chain and waits for it, so that connection set-up and
    /// librdkafka's first-message delays stay out of the measurement.
    private func warmUp(producer: KafkaProducer, sink: KafkaConsumer, source: String) async throws {
        let deadline = Task {
            try await Task.sleep(for: .seconds(30))
            sink.close()
        }
        defer { deadline.cancel() }
        _ = try await producer.send(OutgoingMessage(topic: source, key: "warm-up", value: []))
        for try await message in sink.messages where message.keyString == "warm-up" { return }
        throw KafkaError(code: KafkaError.Code.timedOut, message: "the warm-up message did not come through the relays")
    }

    /// Reads until every message arrived (duplicates counted once) or the sink is closed.
    private func receive(from sink: KafkaConsumer) async throws -> ([Duration], ContinuousClock.Instant) {
        var seen = Set<String>()
        var latencies: [Duration] = []
        var finished = ContinuousClock.now
        for try await message in sink.messages {
            let now = Self.wallClockNanoseconds()
            guard let key = message.keyString, seen.insert(key).inserted,
                  let header = message.header(BenchCommand.sentAtHeader),
                  let sentAt = Int64(String(decoding: header, as: UTF8.self)) else { continue }
            latencies.append(.nanoseconds(now - sentAt))
            finished = .now
            if latencies.count == settings.messages { break }
        }
        return (latencies, finished)
    }

    /// Waits (at most 30 s) for a relay's first non-empty `assigned` event.
    private static func waitForAssignment(_ hop: ChildProcess) async -> Bool {
        let timeout = Task {
            try await Task.sleep(for: .seconds(30))
            await hop.stop()
        }
        defer { timeout.cancel() }
        while let line = await hop.nextLine() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["event"] as? String == "assigned",
                  let partitions = object["partitions"] as? [Any], !partitions.isEmpty else { continue }
            return true
        }
        return false
    }

    /// Nanoseconds since the Unix epoch: comparable across the processes of one machine.
    static func wallClockNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
