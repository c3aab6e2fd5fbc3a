import Domain
import Foundation
import Imaging
import Installation
import RegistrarClient
import Support

/// `registrar-dev bench registrations`: registrations through a local installation (the broker and the worker
/// processes), measured end to end, with the argon2id bound of the same cores in the same run.
public struct RegistrationBenchmark: Sendable {
    public struct Settings: Sendable {
        /// Registrations measured.
        public var count: Int
        /// Whether each carries an avatar (the default image, inline), or none (the default image is used).
        public var avatars: Bool
        /// Account worker processes in the group.
        public var accountReplicas: Int
        /// All published at once (a burst) rather than `inFlight` at a time.
        public var burst: Bool
        /// Registrations awaited at once when not a burst.
        public var inFlight: Int
        /// How long the processes are watched idle after the run (zero: not at all).
        public var idle: Duration
        /// How long the argon2id hashers run.
        public var hashing: Duration
        public var dataDirectory: String
        public var binaries: String
        /// A running broker to use (Tansu, a Kafka cluster), else the local broker is started.
        public var bootstrap: String?
        /// The workers' fetch wait, when not their own choice for the broker (`ConnectionOptions.longFetchWait` on a real
        /// broker, 50 ms on the local one).
        public var fetchWait: Duration?

        var workerArguments: [String] {
            fetchWait.map { ["--kafka-property", "fetch.wait.max.ms=\($0.milliseconds)"] } ?? []
        }

        public init(count: Int, avatars: Bool, accountReplicas: Int, burst: Bool, inFlight: Int, idle: Duration,
                    hashing: Duration, dataDirectory: String, binaries: String, bootstrap: String? = nil) {
            (self.count, self.avatars, self.accountReplicas, self.burst, self.inFlight) = (count, avatars, accountReplicas, burst, inFlight)
            (self.idle, self.hashing, self.dataDirectory, self.binaries, self.bootstrap) = (idle, hashing, dataDirectory, binaries, bootstrap)
        }
    }

    /// How long the CLI waits for an outcome by default (`registrar register --timeout`).
    static let cliWait = Duration.seconds(30)

    public let settings: Settings
    public init(_ settings: Settings) { self.settings = settings }

    /// Starts the installation, runs the registrations, measures the bound and the idle processes, stops it.
    public func run() async throws -> RegistrationReport {
        let logger = Logger(component: "bench")
        let broker: LocalInstallation.Broker = settings.bootstrap.map { .external(bootstrap: $0) } ?? .local(arguments: [])
        let installation = try await LocalInstallation(at: settings.dataDirectory, binaries: settings.binaries, broker: broker,
                                                       workerArguments: settings.workerArguments)
        do {
            for _ in 1..<max(1, settings.accountReplicas) { try installation.startReplica(of: WorkerRole.account.workerName) }
            let report = try await measure(installation, logger: logger)
            await installation.stop()
            try? FileManager.default.removeItem(atPath: installation.directory)
            return report
        } catch {
            await installation.stop()
            throw error
        }
    }

    private func measure(_ installation: LocalInstallation, logger: Logger) async throws -> RegistrationReport {
        var report = RegistrationReport(settings: settings)
        try await GroupJoins.wait(for: installation.processes.map(\.name).filter { $0 != "broker" }, logs: installation.logs)
        logger.info("every worker has its partitions")
        let avatar = settings.avatars ? AvatarProcessor().defaultAvatar().jpeg : nil
        return try await RegistrarClient.with(kafka: installation.kafka(clientID: "registrar-bench"), publicKey: installation.publicKey,
                                              verifier: try installation.outcomeVerifier(), name: "registrar-bench") { client in
            let runID = String(UInt32.random(in: 0...UInt32.max), radix: 36)
            func email(_ index: Int) -> String { "bench-\(runID)-\(index)@bench.example" }
            // Each registration carries the register code mailed to its address, requested before the clock starts.
            let indices = Array(-2 * settings.accountReplicas..<settings.count)
            let codes = try await MailedCodes(directory: installation.directory + "/outbox").codes(for: indices.map(email), .register, with: client)
            func request(_ index: Int) throws -> RegistrationRequested {
                try client.registration(email: email(index), password: "bench \(runID) password \(index)", code: codes[email(index)],
                                        name: "Bench \(index)", avatar: avatar)
            }
            // Every process connected and warm: one registration per account worker, one after the other.
            for index in 0..<(2 * settings.accountReplicas) {
                _ = try await Self.register(try request(-1 - index), with: client, timeout: .seconds(120))
            }
            let requests = try (0..<settings.count).map(request)
            report.loadBefore = LoadAverage.now
            let before = Self.usage(installation)
            let start = ContinuousClock.now
            report.samples = try await run(requests, with: client)
            report.elapsed = ContinuousClock.now - start
            report.cpu = Self.usage(installation).mapValues(\.cpuTime) - before.mapValues(\.cpuTime)
            report.peakResident = Self.usage(installation).mapValues(\.peakResidentBytes)
            report.loadAfter = LoadAverage.now
            report.hashers = ProcessInfo.processInfo.activeProcessorCount
            let hashing = ProcessUsage(pid: getpid())?.cpuTime ?? .zero
            (report.hashes, report.hashesPerSecond) = try await Argon2Bound.hashesPerSecond(hashers: report.hashers, for: settings.hashing)
            report.hashingCPU = (ProcessUsage(pid: getpid())?.cpuTime ?? .zero) - hashing
            report.loadHashing = LoadAverage.now
            if settings.idle > .zero { report.idle = try await idle(installation) }
            return report
        }
    }

    /// Publishes `requests` (all at once, or `inFlight` at a time) and awaits every outcome.
    private func run(_ requests: [RegistrationRequested], with client: RegistrarClient) async throws -> [RegistrationReport.Sample] {
        let window = settings.burst ? requests.count : max(1, settings.inFlight)
        return try await withThrowingTaskGroup(of: RegistrationReport.Sample.self) { group in
            var next = requests.makeIterator()
            for request in requests.prefix(window) {
                _ = next.next()
                group.addTask { try await Self.register(request, with: client, timeout: .seconds(900)) }
            }
            var samples: [RegistrationReport.Sample] = []
            while let sample = try await group.next() {
                samples.append(sample)
                if let request = next.next() {
                    group.addTask { try await Self.register(request, with: client, timeout: .seconds(900)) }
                }
            }
            return samples
        }
    }

    /// Publishes `request` and awaits its outcome, timed from the publish.
    private static func register(_ request: RegistrationRequested, with client: RegistrarClient,
                                 timeout: Duration) async throws -> RegistrationReport.Sample {
        let event = Event.registrationRequested(request)
        let start = ContinuousClock.now
        do {
            let outcome = try await client.outcome(of: event, timeout: timeout) { try await client.publish(event) }
            let latency = ContinuousClock.now - start
            if case .registrationFailed(let failed) = outcome { return .init(latency: latency, failure: failed.reason.rawValue) }
            return .init(latency: latency, failure: nil)
        } catch is RegistrarClient.TimedOut {
            return .init(latency: ContinuousClock.now - start, failure: "no outcome within \(timeout)")
        }
    }

    /// Each process's CPU share and resident memory over `settings.idle`, after a few seconds' settling.
    private func idle(_ installation: LocalInstallation) async throws -> RegistrationReport.Idle {
        try await Task.sleep(for: .seconds(5))
        let before = Self.usage(installation)
        let start = ContinuousClock.now
        try await Task.sleep(for: settings.idle)
        let after = Self.usage(installation)
        let seconds = (ContinuousClock.now - start).timeInterval
        return .init(seconds: seconds, load: LoadAverage.now,
                     coreShare: (after.mapValues(\.cpuTime) - before.mapValues(\.cpuTime)).mapValues { $0.timeInterval / seconds },
                     resident: after.mapValues(\.residentBytes))
    }

    /// The usage of the installation's processes and of this one (`bench`), by name.
    private static func usage(_ installation: LocalInstallation) -> [String: ProcessUsage] {
        var usage: [String: ProcessUsage] = [:]
        for (name, process) in installation.processes { usage[name] = ProcessUsage(pid: process.pid) }
        usage["bench (client)"] = ProcessUsage(pid: getpid())
        return usage
    }
}

private func - (after: [String: Duration], before: [String: Duration]) -> [String: Duration] {
    after.compactMapValues { $0 }.reduce(into: [:]) { result, entry in result[entry.key] = entry.value - (before[entry.key] ?? .zero) }
}
