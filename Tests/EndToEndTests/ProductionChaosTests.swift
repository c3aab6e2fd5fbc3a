import Foundation
import Support
import Synchronization
@testable import TestSupport
import Testing

/// The chaos run on the production backends — PostgreSQL, S3 (moto) and SMTP (aiosmtpd) — where, on
/// top of the worker and gateway kills, broker outages and request errors (apps through the gateway among
/// the clients), the stores fail: the database is restarted and made read-only, the image store answers
/// writes with 5xx, the mail server defers sends. `registrar-dev chaos` checks every promise and exits 0 only if all hold.
///
/// As root it adds the long faults (`--long-faults`): beside the run's own, the database stopped, the image
/// store answering 503 and the mail server deferring, for `longFaultSeconds` each.
///
/// `REGISTRAR_CHAOS_REGISTRATIONS` and `REGISTRAR_CHAOS_RATE` set the run's size and pace (default 150 at
/// 25/s), `REGISTRAR_CHAOS_SETTLE` its settle time (default the command's) and `REGISTRAR_CHAOS_SEED` its seed, for a long
/// run by hand.
@Suite(.tags(.live, .chaos, .production, .serial), .serialized) struct ProductionChaosTests {
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
        var faults = [
            "database restarted": postgres.restartCommand,
            "database made read-only": postgres.readOnlyCommand(seconds: 2),
            "image store failing writes": "curl -sf -X POST '\(imageFaults)'",
            "mail server deferring sends": Self.deferral(mail, seconds: 2),
        ]
        // The long faults (root only: the run mounts a tmpfs to fill): these stores' own, as commands, named as on the embedded stores.
        let longFaults = getuid() == 0
        if longFaults {
            let imageOutage = try #require(relay.withLock { $0?.outageURL(seconds: Self.longFaultSeconds) })
            faults["database down for \(Self.longFaultSeconds) s"] = postgres.downCommand(seconds: Self.longFaultSeconds)
            faults["image store failing for \(Self.longFaultSeconds) s"] = "curl -sf -X POST '\(imageOutage)' && sleep \(Self.longFaultSeconds)"
            faults["mail server refusing for \(Self.longFaultSeconds) s"] = Self.deferral(mail, seconds: Self.longFaultSeconds)
        }
        let registrations = ProcessInfo.processInfo.environment["REGISTRAR_CHAOS_REGISTRATIONS"] ?? "150"
        let rate = ProcessInfo.processInfo.environment["REGISTRAR_CHAOS_RATE"] ?? "25"
        let settle = ProcessInfo.processInfo.environment["REGISTRAR_CHAOS_SETTLE"].map { ["--settle", $0] } ?? []
        let seed = ProcessInfo.processInfo.environment["REGISTRAR_CHAOS_SEED"] ?? "20261201"

        let run = try await ChaosRun.run(["--rate", rate, "--fault-interval", "2", "--gateway-wait", "2", "--seed", seed] + settle + [
                                          "--sent-mail", mail.directory + "/new"]
                                            + (longFaults ? ["--long-faults", "--long-fault-seconds", String(Self.longFaultSeconds)] : [])
                                            + faults.sorted { $0.key < $1.key }.flatMap { ["--fault", "\($0.key)=\($0.value)"] },
                                         registrations: registrations, environment: stores.environment,
                                         log: "registrar-chaos-production-test.log", directory: directory)
        let killed = ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker", "gateway"].map { "\($0) SIGKILLed and restarted" }
        try run.expectInjected(faults.keys + killed + ["broker down and up", "request errors injected",
                                                       "local broker SIGKILLed for \(longFaults ? Self.longFaultSeconds : 3) s"]
                               + (longFaults ? ["a worker frozen for \(Self.longFaultSeconds) s"] + ChaosRun.clockSteps : []))
    }

    /// How long each long fault lasts (`REGISTRAR_CHAOS_LONG_FAULT_SECONDS`, default 5; 60 for the full run by hand).
    static let longFaultSeconds = Int(ProcessInfo.processInfo.environment["REGISTRAR_CHAOS_LONG_FAULT_SECONDS"] ?? "") ?? 5

    /// A command that makes the mail server defer every recipient (451) for `seconds`.
    static func deferral(_ mail: SMTPServer, seconds: Int) -> String {
        "touch '\(mail.deferralFlag)' && sleep \(seconds) && rm '\(mail.deferralFlag)'"
    }
}
