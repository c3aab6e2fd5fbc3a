import Domain
import Foundation
import Installation
@testable import TestSupport
import Testing

/// Issue 23 point 4 on the real binaries: the account worker runs under libfaketime (Debian `faketime`), its wall clock
/// stepped by +150 s, −150 s, +10 min and −10 min (to offsets +150, 0, +600, then back to 0, then −600 s; the monotonic
/// clock untouched, as NTP leaves it) while registrations wait for their avatar (the image worker frozen). With a 60 s
/// saga deadline, none is undone: the deadline counts time without progress on the monotonic clock. After each step a
/// registration sealed on the test's clock completes while the skew is within the 300 s seal window; beyond it, it is
/// refused as `invalid_credentials`, and the account worker logs the measured skew and counts it
/// (`registrar_seal_clock_refusals_total`).
@Suite(.tags(.live, .timed, .outage), .serialized) struct ClockStepTests {
    @Test(.enabled(if: SteppedClock.isAvailable, "libfaketime (Debian faketime) is not installed"))
    func clockStepsFailNoRegistrationInFlightAndSkewBeyondTheSealWindowIsReported() async throws {
        let others = LocalInstallation.workerNames.filter { $0 != "account-worker" }
        try await LiveSystem.with(workers: others, extraArguments: ["account-worker": ["--saga-deadline", "60"] + StartDuringOutageTests.endpoint]) { system in
            let clock = try SteppedClock(in: system.directory)
            try system.installation.start("account-worker", environment: clock.environment)
            try await GroupJoins.wait(for: LocalInstallation.workerNames, logs: system.logs)
            let port = try await StartDuringOutageTests.port(of: "account-worker", in: system.installation)
            var refused = 0
            var current = 0
            for (phase, offset) in [150, 0, 600, 0, -600].enumerated() {
                defer { current = offset }
                // Registrations in flight across the step, sealed while the worker's clock is within the seal window
                // (not when coming back from +10 min: that step only resets the clock).
                var inFlight: [RegistrationRequested] = []
                if abs(current) <= 300 {
                    for index in 0..<2 { inFlight.append(try await system.request(email: "step\(phase)-\(index)@example.com")) }
                }
                system.installation.send(SIGSTOP, to: "image-worker")
                try await system.publish(inFlight)
                try await Self.waitForSagas(inFlight.map(\.registrationId), in: system)
                try clock.step(to: offset)
                // More than one sweep (every 5 s) on the stepped clock before the avatars come.
                try await Task.sleep(for: .seconds(7))
                system.installation.send(SIGCONT, to: "image-worker")
                let outcomes = try await system.waitForOutcomes(inFlight.map(\.registrationId), timeout: .seconds(120))
                for request in inFlight {
                    guard case .registrationCompleted = outcomes[request.registrationId]?.first else {
                        Issue.record("step \(offset - current) s: \(request.email) in flight got \(String(describing: outcomes[request.registrationId]))")
                        continue
                    }
                }
                // A registration sealed now, on the test's clock.
                let fresh = try await system.request(email: "fresh\(phase)@example.com")
                try await system.publish([fresh])
                let outcome = try await system.waitForOutcomes([fresh.registrationId], timeout: .seconds(120))[fresh.registrationId]?.first
                if abs(offset) <= 300 {
                    guard case .registrationCompleted = outcome else { Issue.record("offset \(offset) s: \(String(describing: outcome))"); continue }
                } else {
                    refused += 1
                    guard case .registrationFailed(let failed) = outcome else { Issue.record("offset \(offset) s: \(String(describing: outcome))"); continue }
                    #expect(failed.reason == .invalidCredentials)
                }
            }
            let log = try String(contentsOfFile: system.logs + "/account-worker.log", encoding: .utf8)
            let skews = log.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["seal_clock_skew_seconds"] as? Int
            }
            #expect(skews.count == refused, "\(skews)")
            #expect(skews.contains { (590...620).contains($0) }, "the worker ahead by 600 s: \(skews)")
            #expect(skews.contains { (-620 ... -590).contains($0) }, "the worker behind by 600 s: \(skews)")
            let metrics = try await OperationsEndpointTests.get(port, "/metrics").body
            #expect(metrics.contains("registrar_seal_clock_refusals_total{direction=\"worker_ahead\"} 1"), "\(metrics)")
            #expect(metrics.contains("registrar_seal_clock_refusals_total{direction=\"worker_behind\"} 1"), "\(metrics)")
            #expect(system.allWorkersRunning)
        }
    }

    /// Waits until the account worker has started the sagas `ids` (asked for their avatars).
    static func waitForSagas(_ ids: [String], in system: LiveSystem) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let accounts = try system.backends.accounts()
            if try ids.allSatisfy({ try accounts.saga($0) != nil }) { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw HarnessError("the sagas \(ids) were not started within 60 s")
    }
}
