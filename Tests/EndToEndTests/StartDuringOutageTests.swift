import Backends
import Domain
import Foundation
import Installation
import RegistrarClient
import Support
@testable import TestSupport
import Testing

/// Issue 23 point 3 on the real binaries: a worker started while its database, object store, mail server, broker or
/// disk is unavailable neither exits nor restarts in a loop. It stays alive (`/healthz` 200), says on `/readyz` (503)
/// what it waits for, and serves once the dependency is back. A worker restarted with its keys unchanged writes
/// nothing (`keys/jwks.json` stays the same file), and SIGTERM ends a waiting worker at once.
@Suite(.tags(.live, .timed, .outage), .serialized) struct StartDuringOutageTests {
    static let endpoint = ["--metrics-listen", "127.0.0.1:0"]

    @Test func workersStartedWhileTheirDatabaseIsDownWaitAndServeOnceItIsBack() async throws {
        let postgres = try PostgresServer()
        let database = try postgres.newDatabase()
        try postgres.stop()
        try await Self.with(BackendOptions(accounts: database, profiles: database, dataDirectory: "")) { installation in
            var ports: [String: Int] = [:]
            for worker in ["account-worker", "profile-worker", "code-dispatch-worker"] {
                let port = try await Self.port(of: worker, in: installation)
                let waiting = try await Self.readiness(of: port, becomes: 503)
                #expect(waiting.contains("waiting for its stores") && waiting.contains("127.0.0.1"), "\(worker): \(waiting)")
                #expect(try await OperationsEndpointTests.get(port, "/healthz").status == 200, "\(worker) is alive")
                ports[worker] = port
            }
            // Longer than the 2 s after which a worker used to exit with "connection refused".
            try await Task.sleep(for: .seconds(5))
            #expect(installation.stoppedWorkers.isEmpty, "no worker exited: \(installation.stoppedWorkers)")
            try postgres.start()
            for port in ports.values { _ = try await Self.readiness(of: port, becomes: 200, within: .seconds(60)) }
            try await Self.expectRegistrationCompletes(installation)
        }
    }

    @Test func theImageWorkerStartedWhileItsObjectStoreIsDownWaitsAndServesOnceItIsBack() async throws {
        let directory = Self.temporaryDirectory("s3")
        var relay: HTTPRelay?
        let stores = try StoreLocation.make(for: directory, relayingImages: { port in
            let created = try HTTPRelay(to: port)
            relay = created
            return created
        })
        let outage = try #require(relay).outageURL(seconds: 12)
        defer { relay?.close() }
        _ = try runCommand("/usr/bin/curl", ["-sf", "-X", "POST", outage])
        try await Self.with(stores.options, at: directory, environment: stores.environment) { installation in
            let port = try await Self.port(of: "image-worker", in: installation)
            let waiting = try await Self.readiness(of: port, becomes: 503)
            #expect(waiting.contains("waiting for its stores") && waiting.contains("HTTP 503"), "\(waiting)")
            _ = try await Self.readiness(of: port, becomes: 200, within: .seconds(60))
            #expect(installation.stoppedWorkers.isEmpty)
            try await Self.expectRegistrationCompletes(installation, avatar: try await Fixtures.noiseJPEG(width: 64, height: 64),
                                                       emails: stores.emails)
        }
    }

    @Test func theCodeDispatchWorkerStartedWhileTheMailServerIsDownWaitsAndServesOnceItIsBack() async throws {
        let mail = try SMTPServer()
        mail.stop()
        let url = "smtp://127.0.0.1:\(mail.port)?tls=none&connect-timeout=2&timeout=10"
        try await Self.with(BackendOptions(mail: url, dataDirectory: ""), workers: ["code-dispatch-worker"]) { installation in
            let port = try await Self.port(of: "code-dispatch-worker", in: installation)
            let waiting = try await Self.readiness(of: port, becomes: 503)
            #expect(waiting.contains("waiting for its stores") && waiting.contains("smtp://127.0.0.1:\(mail.port)"), "\(waiting)")
            try await Task.sleep(for: .seconds(3))
            #expect(installation.stoppedWorkers.isEmpty)
            try mail.start()
            _ = try await Self.readiness(of: port, becomes: 200, within: .seconds(60))
            let client = try installation.client(name: "outage-test")
            let sent = try await client.send(.codeRequested(CodeRequested(requestId: UUID().uuidString.lowercased(),
                                                                          email: "mail-outage@example.com", purpose: .login)),
                                             timeout: .seconds(60))
            await client.close()
            guard case .codeSent = sent else { throw HarnessError("no code sent: \(sent)") }
            #expect(try mail.messages().count == 1)
        }
    }

    /// No broker address yet (the local broker not started): the worker waits for it, and SIGTERM ends that wait.
    @Test func aWorkerStartedBeforeItsBrokerWaitsForItAndAStopSignalEndsTheWait() async throws {
        let directory = Self.temporaryDirectory("broker")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try PrivateFiles.prepareDirectory(directory)
        let log = directory + "/profile-worker.log"
        let worker = try ChildProcess(Binaries.path("profile-worker"), ["--data-dir", directory] + Self.endpoint, errors: .file(log))
        let port = try await Self.port(loggedIn: log)
        let waiting = try await Self.readiness(of: port, becomes: 503)
        #expect(waiting.contains("no broker address yet") && waiting.contains("broker.bootstrap"), "\(waiting)")
        #expect(try await OperationsEndpointTests.get(port, "/healthz").status == 200)
        let broker = try ChildProcess(Binaries.path("registrar-dev"), ["broker", "--data-dir", directory], errors: .file(directory + "/broker.log"))
        defer { broker.send(SIGKILL) }
        _ = await broker.nextLine()
        _ = try await Self.readiness(of: port, becomes: 200, within: .seconds(60))
        worker.send(SIGTERM)
        #expect(await worker.waitForExit() == 0)

        // Stopped while it waits (its /readyz says so): at once, and cleanly. A wait the signal did not reach would
        // last until a broker address appeared, which none does here.
        broker.send(SIGKILL)
        _ = await broker.waitForExit()
        try FileManager.default.removeItem(atPath: directory + "/broker.bootstrap")
        let secondLog = directory + "/profile-worker-again.log"
        let second = try ChildProcess(Binaries.path("profile-worker"), ["--data-dir", directory] + Self.endpoint, errors: .file(secondLog))
        let secondPort = try await Self.port(loggedIn: secondLog)
        let waitingAgain = try await Self.readiness(of: secondPort, becomes: 503)
        #expect(waitingAgain.contains("no broker address yet"), "\(waitingAgain)")
        #expect(second.isRunning)
        let stopping = ContinuousClock.now
        second.send(SIGTERM)
        #expect(await second.waitForExit() == 0)
        #expect(ContinuousClock.now - stopping < .seconds(30))
    }

    /// The data disk full (a tmpfs filled to its last block): the account worker restarted on it writes nothing, waits
    /// for room while a registration needs it, and serves once there is room. (Root only: it mounts the tmpfs.)
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func theAccountWorkerRestartedOnAFullDiskWritesNothingAndServesOnceThereIsRoom() async throws {
        let directory = Self.temporaryDirectory("disk")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        _ = try runCommand("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=64m,mode=0700", "registrar-outage-test", directory])
        defer {
            _ = try? runCommand("/usr/bin/umount", [directory])
            try? FileManager.default.removeItem(atPath: directory)
        }
        let installation = try await LocalInstallation(at: directory, binaries: Binaries.directory,
                                                       workerArguments: LocalInstallation.quickFailover)
        do {
            try await Self.expectRegistrationCompletes(installation)
            // The next registration's code is mailed before the disk fills.
            let code = try await installation.client(name: "disk-code").mailedCode(.register, to: "full-disk@example.com",
                                                                                     in: { try Self.outbox(of: installation) })
            let jwks = directory + "/keys/jwks.json"
            let before = try FileManager.default.attributesOfItem(atPath: jwks)
            await installation.kill("account-worker")
            let filler = directory + "/.disk-full"
            _ = try runCommand("/bin/sh", ["-c", "fallocate -l $(( $(stat -f -c '%a * %S' '\(directory)') )) '\(filler)'; "
                                       + "head -c 64M /dev/zero >> '\(filler)' 2>/dev/null; true"])
            // Its log lives off the full disk, its endpoint on a port of its own.
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-disk-\(UUID().uuidString.prefix(8)).log").path
            let port = try freePort()
            let worker = try ChildProcess(Binaries.path("account-worker"), [
                "--data-dir", directory, "--keys-dir", directory + "/keys", "--metrics-listen", "127.0.0.1:\(port)",
            ] + LocalInstallation.quickFailover, errors: .file(log))
            defer { worker.send(SIGKILL) }
            // Once its endpoint listens, it has started and it is a member of its group (the killed one's membership
            // times out first; each takes longer on a loaded machine): ready, or waiting for room, saying so — never gone.
            let joining = ContinuousClock.now + .seconds(60)
            var started = (status: 0, body: "")
            repeat {
                try await Task.sleep(for: .milliseconds(500))
                started = try await OperationsEndpointTests.get(port, "/readyz")
            } while !(started.status == 200 || started.body.contains("waiting for")) && worker.isRunning && ContinuousClock.now < joining
            #expect(started.status == 200 || started.body.contains("waiting for"), "\(started)")
            #expect(worker.isRunning)
            let after = try FileManager.default.attributesOfItem(atPath: jwks)
            #expect(after[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int, "jwks.json not rewritten")
            #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date)

            let client = try installation.client(name: "disk-test")
            let request = try client.registration(id: UUID().uuidString.lowercased(), email: "full-disk@example.com",
                                                  password: "correct horse battery", code: code, name: "Full Disk", avatar: nil)
            async let outcome = client.register(request, timeout: .seconds(120))
            let waiting = try await Self.readiness(of: port, becomes: 503)
            #expect(waiting.contains("waiting for"), "\(waiting)")
            try FileManager.default.removeItem(atPath: filler)
            guard case .completed = try await outcome else { throw HarnessError("the registration did not complete") }
            await client.close()
            #expect(worker.isRunning)
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(text.contains("waiting and retrying"), "\(text.suffix(2000))")
        } catch {
            await installation.stop()
            throw error
        }
        await installation.stop()
    }

    // MARK: - Helpers

    static func temporaryDirectory(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("registrar-outage-\(name)-\(UUID().uuidString.prefix(8))").path
    }

    /// Runs `body` with an installation of `workers` on `stores` (the data directory filled in), each worker serving
    /// its operations endpoint; stops it afterwards, keeping its data when `body` throws.
    /// The emails in the embedded outbox of `installation`.
    static func outbox(of installation: LocalInstallation) throws -> [String] {
        let outbox = installation.directory + "/outbox"
        return try FileManager.default.contentsOfDirectory(atPath: outbox).filter { $0.hasSuffix(".eml") }
            .map { try String(contentsOfFile: outbox + "/" + $0, encoding: .utf8) }
    }

    static func with(_ stores: BackendOptions, at directory: String? = nil, environment: [String: String]? = nil,
                     workers: [String] = LocalInstallation.workerNames,
                     _ body: (LocalInstallation) async throws -> Void) async throws {
        var stores = stores
        stores.dataDirectory = directory ?? temporaryDirectory("stores")
        let installation = try await LocalInstallation(at: stores.dataDirectory, binaries: Binaries.directory, stores: stores,
                                                       workers: workers, workerArguments: LocalInstallation.quickFailover + endpoint)
        try await installation.run(body)
    }

    /// The operations port `worker` of `installation` logged.
    static func port(of worker: String, in installation: LocalInstallation) async throws -> Int {
        try await port(loggedIn: installation.logs + "/" + worker + ".log")
    }

    static func port(loggedIn log: String) async throws -> Int {
        try await OperationsEndpointTests.port(loggedIn: log)
    }

    /// Polls `/readyz` on `port` until it answers `status` (with a 503, one saying what it waits for, not that it is
    /// still starting); returns the body then.
    @discardableResult
    static func readiness(of port: Int, becomes status: Int, within limit: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + limit
        var last = (status: 0, body: "")
        repeat {
            last = try await OperationsEndpointTests.get(port, "/readyz")
            if last.status == status, status == 200 || last.body.contains("waiting for") || last.body.contains("no broker") { return last.body }
            try await Task.sleep(for: .milliseconds(200))
        } while ContinuousClock.now < deadline
        throw HarnessError("/readyz on \(port) did not answer \(status) within \(limit); last \(last.status): \(last.body)")
    }

    /// A registration through `installation` completes, with the register code read from `emails` (by default the
    /// embedded outbox).
    static func expectRegistrationCompletes(_ installation: LocalInstallation, avatar: [UInt8]? = nil,
                                            emails: (() throws -> [String])? = nil) async throws {
        let client = try installation.client(name: "outage-test")
        let email = "after-\(UUID().uuidString.prefix(8))@example.com"
        let code = try await client.mailedCode(.register, to: email, in: emails ?? { try outbox(of: installation) })
        let request = try client.registration(id: UUID().uuidString.lowercased(), email: email,
                                              password: "correct horse battery", code: code, name: "After", avatar: avatar)
        let outcome = try await client.register(request, timeout: .seconds(120))
        await client.close()
        guard case .completed = outcome else { throw HarnessError("the registration did not complete: \(outcome)") }
    }
}
