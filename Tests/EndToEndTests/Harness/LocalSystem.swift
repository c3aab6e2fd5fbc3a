import Backends
import Crypto
import Domain
import Foundation
import Kafka
import Registration
import StoreTesting
import Support
import WorkerRuntime

/// A whole Registrar installation for one test: a local broker and the worker binaries as
/// separate processes, sharing a fresh data directory on the embedded defaults (or on the
/// backends named by `REGISTRAR_ACCOUNTS`, `REGISTRAR_PROFILES`, `REGISTRAR_IMAGES`).
final class LocalSystem: Installation, @unchecked Sendable {
    // Mutable state (`workers`) is only touched by the test that owns the system, one call at a time.
    static let workerNames = ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker"]

    let directory: String
    let bootstrap: String
    let broker: ChildProcess
    private(set) var workers: [String: ChildProcess] = [:]
    let publicKey: SealingPublicKey
    var kafka: KafkaConfiguration { KafkaConfiguration(bootstrapServers: bootstrap, clientID: "e2e-test") }
    let backends: StoreLocation
    var now: Date { Date() }

    /// Starts the broker and `workers` (all four by default), each with `extraArguments[name]`.
    /// `postgres`, when given, holds the accounts and profiles (a fresh database on it) instead of the default location.
    static func start(workers names: [String] = workerNames, extraArguments: [String: [String]] = [:],
                      postgres: PostgresServer? = nil,
                      relayingImages: ((Int) throws -> HTTPRelay)? = nil) async throws -> LocalSystem {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-e2e-\(UUID().uuidString.prefix(8))").path
        try createPrivateDirectory(directory)
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        let broker = try ChildProcess(Binaries.path("registrar"), ["broker", "--data-dir", directory],
                                      stderrPath: directory + "/logs/broker.log")
        guard let bootstrap = await broker.nextLine(), bootstrap.contains(":") else {
            throw HarnessError("the local broker did not print its address")
        }
        let system: LocalSystem
        do {
            let keys = try SealingKeyPair.loadOrCreate(at: EmbeddedBackends(directory).sealingKey())
            system = LocalSystem(directory: directory, bootstrap: bootstrap, broker: broker, publicKey: keys.publicKey,
                                 backends: try StoreLocation.make(for: directory, postgres: postgres, relayingImages: relayingImages))
        } catch {
            await broker.stop()
            throw error
        }
        do {
            for name in names { try system.startWorker(name, extraArguments: extraArguments[name] ?? []) }
        } catch {
            await system.stop(keepingData: true)
            throw error
        }
        return system
    }

    /// Runs `body` with a started system and stops it afterwards, whether `body` succeeds or throws.
    static func with(workers names: [String] = workerNames, extraArguments: [String: [String]] = [:], postgres: PostgresServer? = nil,
                     relayingImages: ((Int) throws -> HTTPRelay)? = nil,
                     _ body: (LocalSystem) async throws -> Void) async throws {
        try await start(workers: names, extraArguments: extraArguments, postgres: postgres, relayingImages: relayingImages).run(body)
    }

    private init(directory: String, bootstrap: String, broker: ChildProcess, publicKey: SealingPublicKey, backends: StoreLocation) {
        self.backends = backends
        self.directory = directory
        self.bootstrap = bootstrap
        self.broker = broker
        self.publicKey = publicKey
    }

    /// Starts a worker. A killed worker's partitions move to its successor once the group notices it
    /// is gone: the session timeout is shortened so that the tests need not wait the default 45 s.
    func startWorker(_ name: String, extraArguments: [String] = []) throws {
        let quickFailover = ["--kafka-property", "session.timeout.ms=6000", "--kafka-property", "heartbeat.interval.ms=500"]
        workers[name] = try ChildProcess(Binaries.path(name), ["--data-dir", directory] + quickFailover + extraArguments,
                                         environment: backends.environment,
                                         stderrPath: "\(logs)/\(name).log")
    }

    /// SIGKILLs a worker (no clean-up at all) and waits until it is gone.
    func kill(_ name: String) async {
        guard let worker = workers[name] else { return }
        worker.send(SIGKILL)
        _ = await worker.waitForExit()
    }

    /// Whether every started worker is still running.
    var allWorkersRunning: Bool { workers.values.allSatisfy(\.isRunning) }

    /// Stops everything and removes the data directory (unless kept for a post-mortem).
    func stop(keepingData: Bool = false) async {
        for worker in workers.values { await worker.stop() }
        await broker.stop()
        if !keepingData { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Runs the `registrar` CLI against this system; returns its exit status and standard output.
    func registrar(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = try ChildProcess(Binaries.path("registrar"), arguments + ["--data-dir", directory], environment: backends.environment,
                                       stderrPath: "\(logs)/cli.log")
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        return (await process.waitForExit(), lines.joined(separator: "\n"))
    }
}
