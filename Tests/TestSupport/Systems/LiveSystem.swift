import Backends
import Crypto
import Domain
import Foundation
import Installation
import Kafka
import RegistrarClient
import Registration
import SQLStores
import Support
import WorkerRuntime

/// What a live test works with: an installation (a local broker and the worker binaries as
/// separate processes, in a fresh data directory on the embedded defaults or on the backends of
/// `StoreLocation`), the stores as the test reaches them, and a client of the installation.
///
/// A test that kills, stops or breaks nothing takes a shared system (`shared`), which saves starting
/// a broker and four workers; it keeps to its own emails and ids, and counts only what it adds.
final class LiveSystem: TestSystem {
    let installation: LocalInstallation
    /// The stores, embedded or production (see `StoreLocation`).
    let backends: StoreLocation
    let client: RegistrarClient

    /// The librdkafka properties the broker asks of every client (`TansuServer.clientProperties`); the workers have them too.
    let clientProperties: [String: String]

    var directory: String { installation.directory }
    var kafka: KafkaConfiguration { kafka(clientID: "e2e-test") }
    var now: Date { Date() }

    /// Starts the broker and `workers` (all four by default), each with `extraArguments[name]`.
    /// `postgres`, when given, holds the accounts and profiles (a fresh database on it) instead of the default location.
    /// `broker`, when given, is the broker used instead of a local one (Tansu: the topics are made there).
    static func start(workers names: [String] = LocalInstallation.workerNames, extraArguments: [String: [String]] = [:],
                      postgres: PostgresServer? = nil, broker: TansuServer? = nil,
                      relayingImages: ((Int) throws -> HTTPRelay)? = nil) async throws -> LiveSystem {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-e2e-\(UUID().uuidString.prefix(8))").path
        let backends = try StoreLocation.make(for: directory, postgres: postgres, relayingImages: relayingImages)
        let installation = try await LocalInstallation(at: directory, binaries: Binaries.directory, stores: backends.options,
                                                       broker: broker.map { .external(bootstrap: $0.bootstrapServers) } ?? .local(arguments: []),
                                                       workers: names,
                                                       workerArguments: LocalInstallation.quickFailover + (broker?.workerArguments ?? []),
                                                       arguments: extraArguments)
        do {
            if Set(names) == Set(LocalInstallation.workerNames) { try await storesExist(backends, installation: installation) }
            let clientProperties = broker?.clientProperties ?? [:]
            let client = try RegistrarClient(kafka: Self.kafka(installation, clientID: "e2e-test", clientProperties),
                                             publicKey: installation.publicKey, verifier: installation.outcomeVerifier(), name: "e2e-test")
            return LiveSystem(installation: installation, backends: backends, client: client, clientProperties: clientProperties)
        } catch {
            await installation.stop()
            throw error
        }
    }

    /// Returns once the workers have made their stores (what `registrar audit` and the console open, and refuse
    /// while missing), at most a minute after their start.
    private static func storesExist(_ backends: StoreLocation, installation: LocalInstallation) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while case let missing = try backends.options.missingStores(), !missing.isEmpty {
            guard ContinuousClock.now < deadline else { throw HarnessError("the workers made no stores in 60 s: \(missing); see \(installation.logs)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Runs `body` with a started system and stops it afterwards, whether `body` succeeds or throws.
    static func with(workers names: [String] = LocalInstallation.workerNames, extraArguments: [String: [String]] = [:],
                     postgres: PostgresServer? = nil, broker: TansuServer? = nil, relayingImages: ((Int) throws -> HTTPRelay)? = nil,
                     _ body: (LiveSystem) async throws -> Void) async throws {
        let system = try await start(workers: names, extraArguments: extraArguments, postgres: postgres, broker: broker,
                                     relayingImages: relayingImages)
        do {
            try await body(system)
        } catch {
            await system.stop(keepingData: true)
            FileHandle.standardError.write(Data("kept data and logs of the failed test in \(system.directory)\n".utf8))
            throw error
        }
        await system.stop()
    }

    /// Runs `body` with the system of all four workers given `extraArguments` that the tests of this
    /// process share (started on first use, see `SystemPool`).
    static func shared(extraArguments: [String: [String]] = [:], _ body: (LiveSystem) async throws -> Void) async throws {
        try await SystemPool.shared.using(extraArguments: extraArguments, body)
    }

    /// Runs `body` with a system of all four workers given `extraArguments` that only the tests of the suite
    /// `suite` share: tests that kill and restart workers, one at a time, each leaving every worker running
    /// again, or that leave what other suites would count (dead letters, say).
    static func shared(by suite: String, extraArguments: [String: [String]] = [:],
                       _ body: (LiveSystem) async throws -> Void) async throws {
        try await SystemPool.shared.using(suite, extraArguments: extraArguments, body)
    }

    private init(installation: LocalInstallation, backends: StoreLocation, client: RegistrarClient, clientProperties: [String: String]) {
        self.installation = installation
        self.backends = backends
        self.client = client
        self.clientProperties = clientProperties
    }

    /// A configuration for a client of this system's broker named `clientID`, with `clientProperties`.
    func kafka(clientID: String) -> KafkaConfiguration { Self.kafka(installation, clientID: clientID, clientProperties) }

    private static func kafka(_ installation: LocalInstallation, clientID: String, _ properties: [String: String]) -> KafkaConfiguration {
        var configuration = installation.kafka(clientID: clientID)
        configuration.properties.merge(properties) { $1 }
        return configuration
    }

    func letTimePass(seconds: Double) {}

    /// Starts (or restarts) a worker with the arguments it was first given.
    func startWorker(_ name: String) throws { try installation.start(name) }

    /// SIGKILLs a worker (no clean-up at all) and waits until it is gone.
    func kill(_ name: String) async { await installation.kill(name) }

    /// Freezes the worker `name` (SIGSTOP).
    func hold(_ name: String) async throws { installation.send(SIGSTOP, to: name) }

    /// Thaws the worker `name` (SIGCONT).
    func resume(_ name: String) async throws { installation.send(SIGCONT, to: name) }

    /// Whether every started worker is still running.
    var allWorkersRunning: Bool { installation.stoppedWorkers.isEmpty }

    /// Stops everything and removes the data directory (unless kept for a post-mortem).
    func stop(keepingData: Bool = false) async {
        await client.close()
        await installation.stop()
        if !keepingData { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Runs the `registrar` CLI against this system, `input` (e.g. its secrets, one a line) on its standard input;
    /// returns its exit status and standard output.
    func registrar(_ arguments: [String], input: [String] = []) async throws -> (status: Int32, output: String) {
        try await registrar(arguments, input: input, then: nil)
    }

    /// Runs the `registrar` CLI as ``registrar(_:input:)`` does, and once it had a `purpose` code mailed to `email`,
    /// types that code as the next line, as its user would after reading the mail.
    func registrar(_ arguments: [String], input: [String] = [], mailedCode purpose: CodePurpose,
                   to email: String) async throws -> (status: Int32, output: String) {
        let before = try codeEmails(to: email, purpose)
        return try await registrar(arguments, input: input) { [self] in
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                if let mail = try codeEmails(to: email, purpose).subtracting(before).first, let code = Self.code(in: mail) { return code }
                guard ContinuousClock.now < deadline else { throw HarnessError("no \(purpose.rawValue) code mailed to \(email)") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Runs the `registrar` CLI as ``registrar(_:input:)`` does, then types the line `nextLine` gives, when given.
    func registrar(_ arguments: [String], input: [String], then nextLine: (() async throws -> String)?) async throws -> (status: Int32, output: String) {
        let process = try ChildProcess(Binaries.path("registrar"), arguments + ["--data-dir", directory], environment: backends.environment,
                                       input: .pipe, errors: .file("\(logs)/cli.log"))
        process.write(Array(input.map { $0 + "\n" }.joined().utf8))
        if let nextLine { process.write(Array((try await nextLine() + "\n").utf8)) }
        process.closeInput()
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        return (await process.waitForExit(), lines.joined(separator: "\n"))
    }
}
