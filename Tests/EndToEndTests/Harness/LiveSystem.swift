import Backends
import Crypto
import Domain
import Foundation
import Installation
import Kafka
import RegistrarClient
import Registration
import StoreTesting
import Support
import WorkerRuntime

/// What a live test works with: an installation (a local broker and the worker binaries as
/// separate processes, in a fresh data directory on the embedded defaults or on the backends of
/// `StoreLocation`), the stores as the test reaches them, and a client of the installation.
///
/// A test that kills, stops or breaks nothing takes a shared system (`shared`), which saves starting
/// a broker and four workers; it keeps to its own emails and ids, and counts only what it adds.
final class LiveSystem: Sendable {
    let installation: LocalInstallation
    /// The stores, embedded or production (see `StoreLocation`).
    let backends: StoreLocation
    let client: RegistrarClient

    var directory: String { installation.directory }
    var logs: String { installation.logs }
    var kafka: KafkaConfiguration { installation.kafka(clientID: "e2e-test") }

    /// Starts the broker and `workers` (all four by default), each with `extraArguments[name]`.
    /// `postgres`, when given, holds the accounts and profiles (a fresh database on it) instead of the default location.
    static func start(workers names: [String] = LocalInstallation.workerNames, extraArguments: [String: [String]] = [:],
                      postgres: PostgresServer? = nil,
                      relayingImages: ((Int) throws -> HTTPRelay)? = nil) async throws -> LiveSystem {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-e2e-\(UUID().uuidString.prefix(8))").path
        let backends = try StoreLocation.make(for: directory, postgres: postgres, relayingImages: relayingImages)
        let installation = try await LocalInstallation(at: directory, binaries: Binaries.directory, stores: backends.options,
                                                       workers: names, workerArguments: LocalInstallation.quickFailover,
                                                       arguments: extraArguments)
        do {
            return LiveSystem(installation: installation, backends: backends, client: try installation.client(name: "e2e-test"))
        } catch {
            await installation.stop()
            throw error
        }
    }

    /// Runs `body` with a started system and stops it afterwards, whether `body` succeeds or throws.
    static func with(workers names: [String] = LocalInstallation.workerNames, extraArguments: [String: [String]] = [:],
                     postgres: PostgresServer? = nil, relayingImages: ((Int) throws -> HTTPRelay)? = nil,
                     _ body: (LiveSystem) async throws -> Void) async throws {
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

    /// Runs `body` with the system of all four workers given `extraArguments` that the tests of this
    /// process share (started on first use, see `SystemPool`).
    static func shared(extraArguments: [String: [String]] = [:], _ body: (LiveSystem) async throws -> Void) async throws {
        try await body(try await SystemPool.shared.system(extraArguments: extraArguments))
    }

    private init(installation: LocalInstallation, backends: StoreLocation, client: RegistrarClient) {
        self.installation = installation
        self.backends = backends
        self.client = client
    }

    /// Starts (or restarts) a worker with the arguments it was first given.
    func startWorker(_ name: String) throws { try installation.start(name) }

    /// SIGKILLs a worker (no clean-up at all) and waits until it is gone.
    func kill(_ name: String) async { await installation.kill(name) }

    /// Whether every started worker is still running.
    var allWorkersRunning: Bool { installation.stoppedWorkers.isEmpty }

    /// Stops everything and removes the data directory (unless kept for a post-mortem).
    func stop(keepingData: Bool = false) async {
        await client.close()
        await installation.stop()
        if !keepingData { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Runs the `registrar` CLI against this system; returns its exit status and standard output.
    func registrar(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let process = try ChildProcess(Binaries.path("registrar"), arguments + ["--data-dir", directory], environment: backends.environment,
                                       errors: .file("\(logs)/cli.log"))
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        return (await process.waitForExit(), lines.joined(separator: "\n"))
    }

    /// A registration request as the CLI would publish it (the avatar inline, whatever its size).
    func request(id: String = UUID().uuidString.lowercased(), email: String, password: String = "correct horse battery",
                 name: String = "Test User", avatar: [UInt8]? = nil) -> RegistrationRequested {
        // Without an object store to stage in, making the request cannot fail.
        try! client.registration(id: id, email: email, password: password, name: name, avatar: avatar)
    }

    /// Publishes raw bytes to a topic.
    func publish(_ value: [UInt8], to topic: String, key: String) async throws {
        try await client.publish(OutgoingMessage(topic: topic, key: key, value: value))
    }

    /// Publishes requests (acknowledged by the broker before returning).
    func publish(_ requests: [RegistrationRequested]) async throws {
        for request in requests { try await client.publish(.registrationRequested(request)) }
    }

    /// Every outcome published so far, by registration id (a redelivered saga may publish its outcome twice).
    func outcomes() async throws -> [String: [Event]] {
        var outcomes: [String: [Event]] = [:]
        for message in try await TopicSnapshot.read([Topic.registrationOutcomes], configuration: kafka) {
            let event = try message.event()
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

    /// Waits until the log of `worker` holds `text` (a worker's sign that it met a fault); fails after `timeout`.
    func waitForLog(of worker: String, containing text: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !((try? String(contentsOfFile: "\(logs)/\(worker).log", encoding: .utf8))?.contains(text) ?? false) {
            guard ContinuousClock.now < deadline else { throw HarnessError("\(worker) did not log '\(text)' within \(timeout)") }
            try await Task.sleep(for: .milliseconds(50))
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

    /// How many accounts, profiles and stored objects there are: a test on a shared system compares
    /// them before and after to see what it left behind.
    func counts() throws -> StoreCounts {
        StoreCounts(accounts: try backends.accounts().accounts().count, profiles: try backends.profiles().profiles().count,
                    images: try backends.objects().list(prefix: "ProfileImages/").count,
                    objects: try backends.objects().list(prefix: "").count)
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

/// The number of records in each store of a system.
struct StoreCounts: Equatable, CustomStringConvertible {
    var accounts: Int
    var profiles: Int
    var images: Int
    var objects: Int

    var description: String { "\(accounts) accounts, \(profiles) profiles, \(images) profile images, \(objects) objects" }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
