import Foundation
@testable import TestSupport
import Testing

/// The short chaos run: registrations (30% of them, and of the code requests and sign-ins, sent by apps through a
/// gateway with an `Idempotency-Key` kept across their retries) while workers and the gateway are SIGKILLed, brokers
/// go down, the local broker is SIGKILLed for longer than the gateway's wait (a worker and the gateway started while
/// it is down), request errors are injected and databases are locked, and the owners of some completed registrations
/// update their profiles or delete their accounts (over the topics and through the gateway); `registrar-dev chaos` checks
/// every promise — every app one genuine answer, each deletion nothing left, each update complete or undone among them —
/// and exits 0 only if all hold.
@Suite(.tags(.live, .chaos, .timed), .serialized) struct ChaosTests {
    @Test func nothingIsLostOrHalfDoneUnderFaults() async throws {
        let run = try await ChaosRun.run(["--rate", "30", "--fault-interval", "2", "--gateway-wait", "2", "--seed", "20261130"],
                                         registrations: "300", log: "registrar-chaos-test.log")
        try run.expectInjected(["gateway SIGKILLed and restarted", "local broker SIGKILLed for 3 s"])
        #expect(run.report.contains { $0.hasPrefix("PASS every app got a final answer from the gateway") }, "\(run.text)")
    }
}
