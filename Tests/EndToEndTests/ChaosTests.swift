import Foundation
import Support
import Testing

/// The short chaos run: registrations while workers are SIGKILLed, brokers go down, request errors
/// are injected and databases are locked; `registrar chaos` checks every promise and exits 0 only if all hold.
@Suite(.serialized) struct ChaosTests {
    @Test func nothingIsLostOrHalfDoneUnderFaults() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-chaos-\(UUID().uuidString.prefix(8))").path
        let chaos = try ChildProcess(Binaries.path("registrar"),
                                     ["chaos", "--registrations", "300", "--rate", "30", "--fault-interval", "2", "--seed", "20261130",
                                      "--data-dir", directory],
                                     errors: .file(FileManager.default.temporaryDirectory.path + "/registrar-chaos-test.log"))
        var report: [String] = []
        while let line = await chaos.nextLine() { report.append(line) }
        let status = await chaos.waitForExit()
        #expect(status == 0, "\(report.joined(separator: "\n"))")
        #expect(report.contains { $0.hasPrefix("PASS every request has an outcome (300/300)") }, "\(report.joined(separator: "\n"))")
        #expect(!report.contains { $0.hasPrefix("FAIL") })
        if status == 0 { try? FileManager.default.removeItem(atPath: directory) }
    }
}
