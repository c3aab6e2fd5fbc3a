import Foundation
import StoreTesting
import Support
import Synchronization
import Testing

/// The chaos run on the production backends — PostgreSQL, S3 (moto) and SMTP (aiosmtpd) — where, on
/// top of the worker kills, broker outages and request errors, the stores fail: the database is
/// restarted and made read-only, the image store answers writes with 5xx, the mail server defers
/// sends. `registrar chaos` checks every promise and exits 0 only if all hold.
///
/// `REGISTRAR_CHAOS_REGISTRATIONS` sets the run's size (default 150), for a long run by hand.
@Suite(.serialized) struct ProductionChaosTests {
    @Test func nothingIsLostOrHalfDoneWhenTheProductionStoresFail() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-chaos-pg-\(UUID().uuidString.prefix(8))").path
        let postgres = try PostgresServer()
        let relay = Mutex<HTTPRelay?>(nil)
        let stores = try StoreLocation.make(for: directory, postgres: postgres, relayingImages: { port in
            let created = try HTTPRelay(to: port)
            relay.withLock { $0 = created }
            return created
        }, mailServer: true)
        defer { relay.withLock { $0?.close() } }
        let mail = try #require(stores.mailServer)
        let imageFaults = try #require(relay.withLock { $0?.injectionURL([503, 500, 503, 503]) })
        let faults = [
            "database restarted": postgres.restartCommand,
            "database made read-only": postgres.readOnlyCommand(seconds: 2),
            "image store failing writes": "curl -sf -X POST '\(imageFaults)'",
            "mail server deferring sends": "touch '\(mail.deferralFlag)' && sleep 2 && rm '\(mail.deferralFlag)'",
        ]
        let registrations = ProcessInfo.processInfo.environment["REGISTRAR_CHAOS_REGISTRATIONS"] ?? "150"

        let run = try await ChaosRun.run(["--rate", "25", "--fault-interval", "2", "--seed", "20261201", "--sent-mail", mail.directory + "/new"]
                                            + faults.sorted { $0.key < $1.key }.flatMap { ["--fault", "\($0.key)=\($0.value)"] },
                                         registrations: registrations, environment: stores.environment,
                                         log: "registrar-chaos-production-test.log", directory: directory)
        let workers = ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker"].map { "\($0) SIGKILLed and restarted" }
        try run.expectInjected(faults.keys + workers + ["broker down and up", "request errors injected"])
    }
}
