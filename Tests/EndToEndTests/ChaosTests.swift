import Foundation
@testable import TestSupport
import Testing

/// The short chaos run: registrations while workers are SIGKILLed, brokers go down, request errors
/// are injected and databases are locked; `registrar-dev chaos` checks every promise and exits 0 only if all hold.
@Suite(.tags(.live, .chaos, .timed), .serialized) struct ChaosTests {
    @Test func nothingIsLostOrHalfDoneUnderFaults() async throws {
        try await ChaosRun.run(["--rate", "30", "--fault-interval", "2", "--seed", "20261130"], registrations: "300",
                               log: "registrar-chaos-test.log")
    }
}
