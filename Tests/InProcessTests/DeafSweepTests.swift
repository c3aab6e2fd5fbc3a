import Domain
import Foundation
@testable import TestSupport
import Testing

/// Issue 23 point 6: the time the account worker cannot hear what its broker holds for it counts against no saga —
/// while the broker is down, and while its own work waits for a failing dependency (the replies behind it are not
/// read). Its store stays up, so its sweep could look all along.
@Suite(.tags(.inProcess)) struct DeafSweepTests {
    /// A registration waits for its avatar (no image worker yet) while the broker is down for three times the saga
    /// deadline; once the broker is back, the image worker comes, and the registration completes.
    @Test func aBrokerOutageLongerThanTheDeadlineUndoesNoSaga() async throws {
        try await InProcessSystem.with(workers: ["account-worker", "profile-worker", "code-dispatch-worker"],
                                       extraArguments: ["account-worker": ["--saga-deadline", "15"]]) { system in
            let request = try await system.request(email: "deaf@example.com")
            _ = try await system.send(.registrationRequested(request), awaiting: Topic.imageCommands)
            try system.cluster.setBrokerDown(1)
            try await Task.sleep(for: .seconds(45))
            let saga = try system.backends.accounts().saga(request.registrationId)
            try system.cluster.setBrokerUp(1)
            #expect(saga?.stage == .awaitingAvatar, "undone while its worker could not hear: \(String(describing: saga))")
            try system.startWorker("image-worker")
            let outcomes = try await system.waitForOutcomes([request.registrationId], timeout: .seconds(60))
            guard case .registrationCompleted = outcomes[request.registrationId]?.first else {
                Issue.record("\(String(describing: outcomes[request.registrationId]))")
                return
            }
            #expect(try system.audit().isEmpty)
        }
    }

    /// Mail stops (the SMTP server defers every recipient; on the embedded stores the outbox is made immutable,
    /// `chattr +i`: root only), so the welcome mail of a completed registration waits, holding the account worker's lane
    /// of its reply partition; meanwhile a second registration waits for its avatar for three times the deadline (the
    /// chaos run's mail outage undid 340 registrations whose replies queued behind such lanes). Once mail is back, both
    /// complete.
    @Test(.enabled(if: getuid() == 0, "chattr needs root"))
    func aLaneWaitingForItsMailUndoesNoSagaQueuedMeanwhile() async throws {
        try await InProcessSystem.with(extraArguments: ["account-worker": ["--saga-deadline", "15"]]) { system in
            let first = try await system.request(email: "welcomed@example.com")
            let second = try await system.request(email: "queued@example.com")
            let outbox = system.directory + "/outbox"
            let (stop, start): ([String], [String]) = system.backends.mailServer.map {
                (["/usr/bin/touch", $0.deferralFlag], ["/bin/rm", "-f", $0.deferralFlag])
            } ?? (["/usr/bin/chattr", "+i", outbox], ["/usr/bin/chattr", "-i", outbox])
            try runCommand(stop[0], Array(stop.dropFirst()))
            defer { _ = try? runCommand(start[0], Array(start.dropFirst())) }
            try await system.publish([first])
            let accounts = try system.backends.accounts()
            let deadline = ContinuousClock.now + .seconds(60)
            while try accounts.saga(first.registrationId)?.stage != .completed, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            try await system.hold("image-worker")
            _ = try await system.send(.registrationRequested(second), awaiting: Topic.imageCommands)
            try await Task.sleep(for: .seconds(45))
            let waiting = try accounts.saga(second.registrationId)
            try runCommand(start[0], Array(start.dropFirst()))
            #expect(waiting?.stage == .awaitingAvatar, "undone while a lane waited for mail: \(String(describing: waiting))")
            try await system.resume("image-worker")
            let outcomes = try await system.waitForOutcomes([first.registrationId, second.registrationId], timeout: .seconds(60))
            for request in [first, second] {
                guard case .registrationCompleted = outcomes[request.registrationId]?.first else {
                    Issue.record("\(request.email): \(String(describing: outcomes[request.registrationId]))")
                    continue
                }
            }
        }
    }
}
