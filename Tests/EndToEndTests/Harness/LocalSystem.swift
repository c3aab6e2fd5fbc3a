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
final class LocalSystem: @unchecked Sendable {
    // Mutable state (`workers`) is only touched by the test that owns the system, one call at a time.
    static let workerNames = ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker"]

    let directory: String
    let bootstrap: String
    let broker: ChildProcess
    private(set) var workers: [String: ChildProcess] = [:]
    let publicKey: SealingPublicKey
    var kafka: KafkaConfiguration { KafkaConfiguration(bootstrapServers: bootstrap, clientID: "e2e-test") }
    /// The stores, embedded or production (see `StoreLocation`).
    let backends: StoreLocation
    var logs: String { directory + "/logs" }

    /// Starts the broker and `workers` (all four by default), each with `extraArguments[name]`.
    /// `postgres`, when given, holds the accounts and profiles (a fresh database on it) instead of the default location.
    static func start(workers names: [String] = workerNames, extraArguments: [String: [String]] = [:],
                      postgres: PostgresServer? = nil,
                      relayingImages: ((Int) throws -> HTTPRelay)? = nil) async throws -> LocalSystem {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-e2e-\(UUID().uuidString.prefix(8))").path
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
        let system = try await start(workers: names, extraArguments: extraArguments, postgres: postgres, relayingImages: relayingImages)
        do {
            try await body(system)
        } catch {
            await system.stop(keepingData: true)
            FileHandle.standardError.write(Data("kept data and logs of the failed test in \(system.directory)\n".utf8))
            throw error
        }
        await system.stop()
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

    /// A registration request as the CLI would publish it.
    func request(id: String = UUID().uuidString.lowercased(), email: String, password: String = "correct horse battery",
                 name: String = "Test User", avatar: [UInt8]? = nil) -> RegistrationRequested {
        RegistrationRequested(registrationId: id, email: email, name: name,
                              sealedPassword: Data(publicKey.seal(Array(password.utf8))).base64EncodedString(),
                              avatar: avatar.map { .inline(Data($0).base64EncodedString()) }, isMapLocationEnabled: false)
    }

    /// Publishes raw bytes to a topic.
    func publish(_ value: [UInt8], to topic: String, key: String) async throws {
        let producer = try KafkaProducer(configuration: kafka)
        _ = try await producer.send(OutgoingMessage(topic: topic, key: Array(key.utf8), value: value, headers: []))
        await producer.close()
    }

    /// Publishes requests (acknowledged by the broker before returning).
    func publish(_ requests: [RegistrationRequested]) async throws {
        let producer = try KafkaProducer(configuration: kafka)
        for request in requests {
            let event = Event.registrationRequested(request)
            _ = try await producer.send(OutgoingMessage(topic: event.topic, key: Array(request.registrationId.utf8),
                                                        value: EventCodec.encode(event), headers: []))
        }
        await producer.close()
    }

    /// Every outcome published so far, by registration id (a redelivered saga may publish its outcome twice).
    func outcomes() async throws -> [String: [Event]] {
        let messages = try await TopicSnapshot.read([Topic.registrationOutcomes], configuration: kafka)
        var outcomes: [String: [Event]] = [:]
        for message in messages {
            let event = try EventCodec.decode(message.value)
            outcomes[event.registrationId, default: []].append(event)
        }
        return outcomes
    }

    /// Waits until every id in `ids` has an outcome; returns them. Fails after `timeout`.
    func waitForOutcomes(_ ids: [String], timeout: Duration = .seconds(90)) async throws -> [String: [Event]] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let outcomes = try await self.outcomes()
            if ids.allSatisfy({ outcomes[$0] != nil }) { return outcomes }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("no outcome within \(timeout) for \(ids.filter { outcomes[$0] == nil })")
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// The bytes of every message on every Registrar topic.
    func allTopicMessages() async throws -> [KafkaMessage] {
        try await TopicSnapshot.read(Topic.all.map(\.name), configuration: kafka)
    }

    /// The audit's findings, with nothing in flight counted (grace 0).
    func audit() throws -> [RegistrationAudit.Finding] {
        try RegistrationAudit(accounts: try backends.accounts(), profiles: try backends.profiles(),
                              images: try backends.objects()).run(grace: .zero)
    }

    /// Makes the profile store refuse every write from now on (a trigger raising an error).
    func refuseProfileWrites() async throws {
        try await backends.executeOnProfiles(
            sqlite: "CREATE TRIGGER refuse BEFORE INSERT ON profiles BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
            postgres: "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql; "
                + "CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON profiles FOR EACH ROW EXECUTE FUNCTION refuse();",
            logs: logs)
    }

    /// Empties the profile image of `uid`, leaving an incomplete profile.
    func blankProfileImage(of uid: String) async throws {
        let sql = "UPDATE profiles SET profile_image = '' WHERE uid = '\(uid)'"
        try await backends.executeOnProfiles(sqlite: sql, postgres: sql, logs: logs)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
