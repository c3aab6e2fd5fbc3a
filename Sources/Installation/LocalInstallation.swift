import Backends
import Crypto
import Domain
import EventTransport
import Foundation
import Kafka
import RegistrarClient
import Support

/// A whole installation on this machine, for `registrar-dev demo`, `registrar-dev chaos` and the live tests:
/// a local broker (or a real one it is given) and the worker binaries as separate processes, sharing
/// one data directory (which it empties first — only one it made itself) and the stores it names: the
/// embedded defaults there, or the URLs given.
public final class LocalInstallation: @unchecked Sendable {
    /// The broker an installation's workers use.
    public enum Broker: Sendable {
        /// The local broker (`registrar-dev broker`, librdkafka's mock cluster), started with these arguments.
        case local(arguments: [String])
        /// A broker already running at this bootstrap address (Tansu, a Kafka cluster): the installation
        /// creates the topics there (`registrar topics create`, one replica) and never stops or restarts it.
        case external(bootstrap: String)
    }

    // `workers` is guarded by `lock`: a chaos run's fault task and its final checks, or a test and
    // its helpers, may start and kill workers at once.
    public static let workerNames = WorkerRole.workers.map(\.workerName)

    /// Worker properties for a real broker that allows a session timeout under Kafka's 6 s minimum (Tansu): the
    /// local broker's failover settings (`ConnectionOptions.localSessionTimeout`), which the workers take by themselves there.
    public static let quickFailover = ConnectionOptions.shortSessionProperties.flatMap { ["--kafka-property", $0] }

    public let directory: String
    /// The broker's address (the local broker's is a new one after `restartBroker`).
    public var bootstrap: String { lock.withLock { localBroker?.bootstrap ?? externalBootstrap ?? "" } }
    public let publicKey: SealingPublicKey
    /// The stores the workers use.
    public let stores: BackendOptions
    /// The directory of the `registrar` and worker binaries.
    public let binaries: String
    private let broker: Broker
    private let externalBootstrap: String?
    private var localBroker: (process: ChildProcess, bootstrap: String)?
    private let arguments: [String: [String]]
    /// The other processes started beside the workers (the gateway): their executables and arguments, by name.
    private var commands: [String: (executable: String, arguments: [String])] = [:]
    private var workers: [String: ChildProcess] = [:]
    private let lock = NSLock()

    public var logs: String { directory + "/logs" }
    public var controlSocket: String { directory + "/broker.control" }
    /// A configuration for a client of this installation's broker.
    public func kafka(clientID: String) -> KafkaConfiguration { KafkaConfiguration(bootstrapServers: bootstrap, clientID: clientID) }

    /// Prepares `path`, starts the local broker of `binaries` with `brokerArguments` (or, given a `broker`,
    /// makes the topics there) and the `workers`, each with `workerArguments` and its own `arguments[name]`,
    /// on `stores` (the embedded defaults in `path` when nil; its data directory is always `path`).
    public convenience init(at path: String, binaries: String, stores: BackendOptions? = nil, brokerArguments: [String] = [],
                            workers names: [String] = workerNames, workerArguments: [String] = [],
                            arguments: [String: [String]] = [:]) async throws {
        try await self.init(at: path, binaries: binaries, stores: stores, broker: .local(arguments: brokerArguments), workers: names,
                            workerArguments: workerArguments, arguments: arguments)
    }

    /// Prepares `path`, starts or provisions `broker`, then the `workers` as the other initializer does.
    public init(at path: String, binaries: String, stores: BackendOptions? = nil, broker: Broker,
                workers names: [String] = workerNames, workerArguments: [String] = [], arguments: [String: [String]] = [:]) async throws {
        directory = try Self.prepare(path)
        var stores = stores ?? BackendOptions(dataDirectory: directory)
        stores.dataDirectory = directory
        self.stores = stores
        self.binaries = binaries
        publicKey = try KeySet.ensure(in: EmbeddedBackends(directory).keysDirectory)
        let common = ["--data-dir", directory] + workerArguments
        let keys = ["--keys-dir", EmbeddedBackends(directory).keysDirectory]
        self.arguments = Dictionary(uniqueKeysWithValues: Self.workerNames.map { name in
            (name, common + keys + (arguments[name] ?? []))
        })
        self.broker = broker
        switch broker {
        case .local(let arguments):
            externalBootstrap = nil
            localBroker = try await Self.startBroker(binaries: binaries, directory: directory, arguments: arguments)
        case .external(let bootstrap):
            externalBootstrap = bootstrap
            try await Self.createTopics(on: bootstrap, binaries: binaries, directory: directory)
        }
        do {
            for name in names { try start(name) }
        } catch {
            await stop()
            throw error
        }
    }

    /// A client of this installation, listening for outcomes from now on.
    public func client(name: String) throws -> RegistrarClient {
        try RegistrarClient(kafka: kafka(clientID: name), publicKey: publicKey, verifier: outcomeVerifier(), name: name)
    }

    /// What a client of this installation verifies outcomes with: the public event keys in its key directory.
    public func outcomeVerifier() throws -> EventVerifier {
        try .outcomes(keysDirectory: EmbeddedBackends(directory).keysDirectory)
    }

    /// Starts (or restarts) the worker or replica `name` (`account-worker`, `account-worker-2`) with the arguments it
    /// was first given, `environment` added to its environment (e.g. libfaketime's, to step its clock).
    public func start(_ name: String, environment: [String: String] = [:]) throws {
        guard let worker = Self.workerNames.first(where: { name == $0 || name.hasPrefix($0 + "-") }) else {
            throw InstallationError("no worker named \(name)")
        }
        try launch(name, as: worker, environment: environment)
    }

    /// Starts one more process of the worker `name` (the same binary, arguments and consumer group), named
    /// `name-2`, `name-3`…, logging to its own file under `logs`; returns that name.
    @discardableResult
    public func startReplica(of name: String) throws -> String {
        let replica = lock.withLock { "\(name)-\(workers.keys.filter { $0 == name || $0.hasPrefix(name + "-") }.count + 1)" }
        try launch(replica, as: name)
        return replica
    }

    /// The local broker (when it is one) and every worker started, by name, the broker first.
    public var processes: [(name: String, process: ChildProcess)] {
        lock.withLock {
            (localBroker.map { [("broker", $0.process)] } ?? []) + workers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }

    /// Starts `registrar gateway` on this installation with `arguments`, as the process `gateway` (killed, signalled and
    /// started again by that name, as a worker is; listed among `stoppedWorkers` when it exits), and returns the URL it
    /// serves on: the port it took first, kept across restarts.
    public func startGateway(_ arguments: [String]) async throws -> String {
        let command = (binaries + "/registrar", ["gateway", "--data-dir", directory] + arguments)
        lock.withLock { commands["gateway"] = (command.0, command.1 + ["--port", "0"]) }
        let process = try launch("gateway", as: "gateway")
        guard let url = await process.nextLine(), let port = url.split(separator: ":").last else {
            throw InstallationError("the gateway did not start; see \(logs)/gateway.log")
        }
        lock.withLock { commands["gateway"] = (command.0, command.1 + ["--port", String(port)]) }
        return url
    }

    /// Starts the gateway again (after `kill("gateway")`), with the arguments and the port `startGateway` gave it.
    public func restartGateway() throws {
        try launch("gateway", as: "gateway")
    }

    @discardableResult
    private func launch(_ name: String, as worker: String, environment: [String: String] = [:]) throws -> ChildProcess {
        let (executable, arguments) = lock.withLock { commands[worker] }
            ?? (binaries + "/" + worker, arguments[worker] ?? ["--data-dir", directory])
        let process = try ChildProcess(executable, arguments, environment: stores.environment.merging(environment) { $1 },
                                       errors: .file("\(logs)/\(name).log"))
        lock.withLock { workers[name] = process }
        return process
    }

    /// SIGKILLs the worker `name` (no clean-up, no commit) and waits until it is gone.
    public func kill(_ name: String) async {
        _ = await signal(name, SIGKILL)
    }

    /// Sends `signal` to the worker `name` and returns its exit status once it is gone; nil when it was never started.
    public func signal(_ name: String, _ signal: Int32) async -> Int32? {
        guard let process = lock.withLock({ workers[name] }) else { return nil }
        process.send(signal)
        return await process.waitForExit()
    }

    /// Sends `signal` to the worker `name` without waiting (SIGSTOP and SIGCONT freeze and thaw it).
    public func send(_ signal: Int32, to name: String) {
        lock.withLock { workers[name] }?.send(signal)
    }

    /// The workers started and not running any more.
    public var stoppedWorkers: [String] {
        lock.withLock { workers.filter { !$0.value.isRunning }.map(\.key).sorted() }
    }

    /// Stops the workers together, then the local broker (SIGTERM, then SIGKILL after a grace period).
    public func stop() async {
        await withTaskGroup(of: Void.self) { group in
            for process in lock.withLock({ Array(workers.values) }) { group.addTask { await process.stop() } }
        }
        await lock.withLock { localBroker?.process }?.stop()
    }

    /// Stops the local broker (losing every topic, offset and message it held in memory) and starts a new
    /// one on the same data directory; it writes its new address where the workers follow it.
    public func restartBroker() async throws {
        await lock.withLock { localBroker?.process }?.stop()
        try await startBrokerAgain()
    }

    /// SIGKILLs the local broker (it leaves its old address in `broker.bootstrap`) and waits until it is gone.
    public func killBroker() async {
        guard let process = lock.withLock({ localBroker?.process }) else { return }
        process.send(SIGKILL)
        _ = await process.waitForExit()
    }

    /// Starts a new local broker on the same data directory, after `killBroker`: it writes its new address where
    /// every process that found the old one there follows it.
    public func startBrokerAgain() async throws {
        guard case .local(let arguments) = broker else { throw InstallationError("the installation's broker is not its own to restart") }
        let restarted = try await Self.startBroker(binaries: binaries, directory: directory, arguments: arguments)
        lock.withLock { localBroker = restarted }
    }

    /// Creates every topic on the broker at `bootstrap` (one replica each) and writes its address where the
    /// workers and the CLI of `directory` find it.
    private static func createTopics(on bootstrap: String, binaries: String, directory: String) async throws {
        let topics = try ChildProcess(binaries + "/registrar", ["topics", "create", "--bootstrap", bootstrap,
                                                                "--replication-factor", "1", "--min-insync-replicas", "1"],
                                      output: .file(directory + "/logs/topics.log"), errors: .file(directory + "/logs/topics.log"))
        guard await topics.waitForExit() == 0 else {
            throw InstallationError("the topics were not created on \(bootstrap); see \(directory)/logs/topics.log")
        }
        // Where `registrar-dev broker --data-dir` leaves its address (`ConnectionOptions.bootstrapFile`).
        try Data((bootstrap + "\n").utf8).write(to: URL(fileURLWithPath: directory + "/broker.bootstrap"), options: .atomic)
    }

    private static func startBroker(binaries: String, directory: String,
                                    arguments: [String]) async throws -> (process: ChildProcess, bootstrap: String) {
        let broker = try ChildProcess(binaries + "/registrar-dev", ["broker", "--data-dir", directory] + arguments,
                                      errors: .file(directory + "/logs/broker.log"))
        guard let bootstrap = await broker.nextLine(), bootstrap.contains(":") else {
            await broker.stop()
            throw InstallationError("the local broker did not start; see \(directory)/logs/broker.log")
        }
        return (broker, bootstrap)
    }

    /// Makes `path` an empty data directory marked as this installation's (refusing one holding other
    /// data) and returns its standardized path.
    public static func prepare(_ path: String) throws -> String {
        let manager = FileManager.default
        let directory = URL(fileURLWithPath: path).standardizedFileURL.path
        let marker = directory + "/.registrar-local"
        if manager.fileExists(atPath: directory) {
            let entries = try manager.contentsOfDirectory(atPath: directory)
            guard entries.isEmpty || manager.fileExists(atPath: marker) else {
                throw InstallationError("\(directory) holds other data; give an empty --data-dir")
            }
            // Emptied rather than removed: it may be a file system mounted there (a chaos run's small disk).
            for entry in entries { try manager.removeItem(atPath: directory + "/" + entry) }
        }
        try PrivateFiles.prepareDirectory(directory)
        try manager.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        _ = manager.createFile(atPath: marker, contents: nil)
        return directory
    }
}

/// An installation that could not be started or used.
public struct InstallationError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension LocalInstallation {
    /// The directory of the running executable, where a build puts `registrar` and the workers side by side.
    public static var besideThisBinary: String { (ChildProcess.currentExecutable as NSString).deletingLastPathComponent }
}
