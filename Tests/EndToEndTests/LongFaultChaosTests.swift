import Foundation
import Support
@testable import TestSupport
import Testing

/// The long-fault chaos run, shortened: beside the short faults, the data disk full, the databases
/// down, the database files, the image store and the outbox unwritable, a worker frozen, the local
/// broker SIGKILLed — each longer than the gateway's wait, a worker and the gateway started again during each —, the account
/// worker's wall clock stepped by ±150 s and ±10 minutes (libfaketime) and back, and oversized and mistyped messages on every
/// input topic; some completed registrations updated and some deleted meanwhile. `registrar-dev chaos
/// --long-faults` also checks that nothing but the hostile messages was dead-lettered and no worker died.
/// (Root only: the run mounts a tmpfs to fill and uses `chattr`.)
@Suite(.tags(.live, .chaos, .timed), .serialized) struct LongFaultChaosTests {
    @Test(.enabled(if: getuid() == 0, "--long-faults needs root"))
    func nothingIsLostDeadLetteredOrStoppedUnderLongFaults() async throws {
        let run = try await ChaosRun.run(["--long-faults", "--long-fault-seconds", "5", "--gateway-wait", "2", "--rate", "5",
                                          "--fault-interval", "1", "--seed", "20261201"], registrations: "100", log: "registrar-chaos-long-test.log")
        try run.expectInjected(["data disk full for 2 s", "database down for 5 s", "store files unwritable for 5 s",
                                "image store failing for 5 s", "mail server refusing for 5 s", "local broker SIGKILLed for 5 s",
                                "a worker frozen for 5 s", "gateway SIGKILLed and restarted"] + ChaosRun.clockSteps)
        #expect(run.report.contains { $0.hasPrefix("PASS nothing else dead-lettered") }, "\(run.text)")
        #expect(run.report.contains { $0.hasPrefix("PASS no worker died") }, "\(run.text)")
    }

    /// Without root the run refuses at once, saying why, and touches no data directory.
    @Test func withoutRootTheLongFaultsAreRefusedClearly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-chaos-refused-\(UUID().uuidString.prefix(8))").path
        let status: Int32
        let output: String
        if getuid() == 0 {
            // As `nobody`, from a copy of the binary it may run (the build directory may be private to root).
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-nobody-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            defer { try? FileManager.default.removeItem(atPath: copy) }
            try FileManager.default.copyItem(atPath: Binaries.path("registrar-dev"), toPath: copy + "/registrar-dev")
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy + "/registrar-dev")
            (status, output) = try ChildProcess.run("/usr/sbin/runuser", ["-u", "nobody", "--", copy + "/registrar-dev", "chaos", "--long-faults",
                                                                          "--data-dir", directory], errors: .standardOutput)
        } else {
            (status, output) = try ChildProcess.run(Binaries.path("registrar-dev"), ["chaos", "--long-faults", "--data-dir", directory],
                                                    errors: .standardOutput)
        }
        #expect(status == 2, "\(output)")
        #expect(output.contains("--long-faults needs root"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
