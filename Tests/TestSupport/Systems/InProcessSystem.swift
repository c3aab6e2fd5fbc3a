import Backends
import Crypto
import EventTransport
import Domain
import Foundation
import Installation
import Kafka
import RegistrarClient
import Support
import WorkerAssembly

/// A whole Registrar installation inside the test process: librdkafka's mock cluster with every
/// topic, and the workers' real `Worker` runtimes and steps (built by the roles' assembly modules from the same
/// options as the binaries) on the embedded stores in a fresh data directory, or on the production
/// stores when `REGISTRAR_E2E_BACKENDS=production` (see `StoreLocation`). The workers read the time
/// from `clock`, which a test moves instead of waiting.
final class InProcessSystem: TestSystem, @unchecked Sendable {
    // Mutable state (`workers`) is only touched by the test that owns the system, one call at a time.
    static let workerNames = RunnableWorkers.all.map { $0.name }

    let directory: String
    let cluster: MockCluster
    let client: RegistrarClient
    let backends: StoreLocation
    /// Starts at a whole second of the real time: stores keep dates to the millisecond, and a date read
    /// back later than the clock's own would look like time running backwards. The shared system's runs with the
    /// real time too: its clients seal secrets with the real time, and it outlives their 300 s.
    let clock: ManualClock
    private var workers: [String: (shutdown: ShutdownSignal, run: Task<Void, any Error>)] = [:]
    /// The extra arguments each worker was started with, which `resume` gives it again.
    private var extraArguments: [String: [String]] = [:]
    var kafka: KafkaConfiguration { KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "e2e-test") }
    /// The later of the workers' clock and the real time (the audit's "now").
    var now: Date { max(Date(), clock.now) }

    /// Runs `body` with the cluster and `workers` (all four by default) started, each with
    /// `extraArguments[name]` on its command line, and stops them afterwards whether `body` succeeds or throws.
    static func with(workers names: [String] = workerNames, extraArguments: [String: [String]] = [:],
                     _ body: (InProcessSystem) async throws -> Void) async throws {
        try await InProcessSystem().run { system in
            for name in names { try system.startWorker(name, extraArguments: extraArguments[name] ?? []) }
            try await body(system)
        }
    }

    /// The system the route suites of this test process share, with all four workers: started on first use, stopped
    /// (its data directory removed) when the process exits, before the servers and libraries its workers use.
    static func shared() async throws -> InProcessSystem {
        try await SharedSystem.instance.system()
    }

    private actor SharedSystem {
        static let instance = SharedSystem()
        private var started: Task<InProcessSystem, any Error>?

        func system() async throws -> InProcessSystem {
            if let started { return try await started.value }
            let task = Task {
                let system = try InProcessSystem(clockRunning: true)
                ExitSequence.add(system, at: .systems) { ExitSequence.waitFor("the shared in-process system") { await system.stop() } }
                for name in workerNames { try system.startWorker(name) }
                return system
            }
            started = task
            return try await task.value
        }
    }

    private init(clockRunning: Bool = false) throws {
        clock = ManualClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)), running: clockRunning)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-inprocess-\(UUID().uuidString.prefix(8))").path
        try createPrivateDirectory(directory)
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        cluster = try MockCluster(brokers: 1)
        try cluster.createTopics(Topic.all.map { ($0.name, $0.partitions) })
        let publicKey = try KeySet.ensure(in: EmbeddedBackends(directory).keysDirectory)
        client = try RegistrarClient(kafka: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "e2e-test"),
                                     publicKey: publicKey, verifier: try .outcomes(keysDirectory: EmbeddedBackends(directory).keysDirectory),
                                     name: "e2e-test")
        backends = try StoreLocation.make(for: directory)
    }

    /// Starts a worker as its binary would run with `extraArguments`, its periodic work (the
    /// stuck-saga sweep) every 100 ms so that a moved clock takes effect at once.
    func startWorker(_ name: String, extraArguments: [String] = []) throws {
        self.extraArguments[name] = extraArguments
        guard let kind = RunnableWorkers.all.first(where: { $0.name == name }) else { throw HarnessError("no worker \(name)") }
        try start(kind, extraArguments)
    }

    private func start<Kind: RunnableWorker>(_ kind: Kind.Type, _ extraArguments: [String]) throws {
        let arguments = ["--data-dir", directory, "--bootstrap", cluster.bootstrapServers, "--keys-dir", EmbeddedBackends(directory).keysDirectory]
            + extraArguments
        let environment = ProcessInfo.processInfo.environment.merging(backends.environment) { $1 }
        let parsed = try ParsedArguments(arguments, spec: kind.spec, environment: environment)
        let shutdown = ShutdownSignal(signals: [])
        let clock = clock
        workers[kind.name] = (shutdown, Task { try await kind.run(parsed, until: shutdown, clock: clock.closure, every: .milliseconds(100)) })
    }

    func letTimePass(seconds: Double) {
        clock.advance(by: seconds)
    }

    /// What a client of this system verifies outcomes with: the public event keys in its key directory.
    func outcomeVerifier() throws -> EventVerifier {
        try .outcomes(keysDirectory: EmbeddedBackends(directory).keysDirectory)
    }

    /// Stops the worker `name` as SIGTERM would.
    func hold(_ name: String) async throws {
        guard let worker = workers.removeValue(forKey: name) else { return }
        worker.shutdown.trigger()
        _ = await worker.run.result
    }

    /// Starts the worker `name` again, with the extra arguments it was started with.
    func resume(_ name: String) async throws { try startWorker(name, extraArguments: extraArguments[name] ?? []) }

    /// Stops every worker as SIGTERM would and removes the data directory (unless kept for a post-mortem).
    func stop(keepingData: Bool = false) async {
        for worker in workers.values { worker.shutdown.trigger() }
        for worker in workers.values { _ = await worker.run.result }
        workers = [:]
        await client.close()
        if !keepingData { try? FileManager.default.removeItem(atPath: directory) }
    }
}
