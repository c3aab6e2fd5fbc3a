import Foundation
import Support
import EventTransport
import Kafka

/// What one `registrar-dev bench registrations` run measured, and how it is printed.
public struct RegistrationReport: Sendable {
    /// One registration: its time from publish to outcome, and its failure reason (nil: completed).
    struct Sample: Sendable {
        var latency: Duration
        var failure: String?
    }

    /// The processes watched idle.
    struct Idle: Sendable {
        var seconds: Double
        var load: LoadAverage
        /// CPU time over the idle time, as a fraction of one core, by process.
        var coreShare: [String: Double]
        var resident: [String: Int]
    }

    let settings: RegistrationBenchmark.Settings
    var samples: [Sample] = []
    var elapsed: Duration = .zero
    /// CPU time each process used during the registrations.
    var cpu: [String: Duration] = [:]
    var peakResident: [String: Int] = [:]
    var loadBefore = LoadAverage(values: [])
    var loadAfter = LoadAverage(values: [])
    var loadHashing = LoadAverage(values: [])
    var hashers = 0
    var hashes = 0
    var hashesPerSecond = 0.0
    /// This process's CPU time while it hashed.
    var hashingCPU: Duration = .zero
    var idle: Idle?

    init(settings: RegistrationBenchmark.Settings) { self.settings = settings }

    public var completed: Int { samples.filter { $0.failure == nil }.count }
    public var completedPerSecond: Double { Double(completed) / max(elapsed.timeInterval, 0.001) }
    /// Completed registrations per second over the argon2id bound of the same cores.
    public var ratio: Double { completedPerSecond / max(hashesPerSecond, 0.001) }

    public var text: String {
        let latencies = samples.map(\.latency).sorted()
        func seconds(_ fraction: Double) -> String {
            latencies.isEmpty ? "-" : String(format: "%.3f s", latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))].timeInterval)
        }
        let failures = Dictionary(grouping: samples.compactMap(\.failure), by: { $0 }).mapValues(\.count)
        let failed = failures.isEmpty ? "none" : failures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let outlived = samples.filter { $0.latency > RegistrationBenchmark.cliWait }.count
        let total = cpu.filter { $0.key != "bench (client)" }.values.reduce(Duration.zero, +)
        let kind = settings.avatars ? "with an avatar (inline JPEG)" : "without an avatar"
        let replicas = "\(settings.accountReplicas) account worker process" + (settings.accountReplicas == 1 ? "" : "es")
        let publishing = settings.burst ? "all published at once" : "\(settings.inFlight) in flight at a time"
        let rate = String(format: "%.2f s = %.1f completed/s", elapsed.timeInterval, completedPerSecond)
        let perHash = hashingCPU.timeInterval * 1000 / Double(max(hashes, 1))
        let bound = String(format: "%.1f hashes/s, %.1f ms CPU per hash; ratio %.2f", hashesPerSecond, perHash, ratio)
        let perRegistration = total.timeInterval * 1000 / Double(max(completed, 1))
        let idleHeader = idle.map { String(format: "   idle %.0f s: CPU %% of a core   RSS", $0.seconds) } ?? ""
        var lines: [String] = [
            "registrations: \(settings.count) \(kind), \(replicas), \(publishing)",
            "\(loadBefore) before, \(loadAfter) after, \(loadHashing) after hashing",
            "completed \(completed)/\(samples.count) in \(rate); failed: \(failed); outlived the CLI's 30 s wait: \(outlived)",
            "latency end to end: p50 \(seconds(0.5)), p99 \(seconds(0.99)), max \(seconds(1))",
            "argon2id bound: \(hashers) parallel hashers (m=19 MiB, t=2, p=1) \(bound)",
            String(format: "CPU per registration, all Registrar processes: %.1f ms = %.2f hashes' CPU (the bound: 1); beyond one hash: %.2f",
                   perRegistration, perRegistration / max(perHash, 0.001), perRegistration / max(perHash, 0.001) - 1),
            "broker: " + (settings.bootstrap.map { "\($0), running" } ?? "the local one (librdkafka's mock cluster)") + "; workers' fetch wait "
                + "\((settings.fetchWait ?? (settings.bootstrap == nil ? KafkaConfiguration.defaultFetchWait : ConnectionOptions.longFetchWait)).milliseconds) ms",
            "process                 CPU ms/registration   peak RSS" + idleHeader,
        ]
        for name in cpu.keys.sorted(by: Self.processOrder) {
            var line = name.padding(toLength: 24, withPad: " ", startingAt: 0)
                + String(format: "%19.2f %9.1f MB", (cpu[name] ?? .zero).timeInterval * 1000 / Double(max(completed, 1)), megabytes(peakResident[name]))
            if let idle {
                line += String(format: "%27.2f %% %7.1f MB", (idle.coreShare[name] ?? 0) * 100, megabytes(idle.resident[name]))
            }
            lines.append(line)
        }
        if let idle { lines.append("idle: \(idle.load)") }
        return lines.joined(separator: "\n")
    }

    private func megabytes(_ bytes: Int?) -> Double { Double(bytes ?? 0) / 1_000_000 }

    /// The broker first, the bench client last, the workers by name between them.
    private static func processOrder(_ lhs: String, _ rhs: String) -> Bool {
        func rank(_ name: String) -> Int { name == "broker" ? 0 : name == "bench (client)" ? 2 : 1 }
        return (rank(lhs), lhs) < (rank(rhs), rhs)
    }
}
