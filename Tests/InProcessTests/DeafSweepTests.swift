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
    /// `chattr +i`: root only). The welcome mail of a completed registration is kept in the account database's
    /// side-effect outbox and waits there, holding up no lane: registrations complete on time meanwhile (the chaos run's
    /// mail outage once undid 340 registrations whose replies queued behind a lane sending its welcome inside the step).
    /// Once mail is back, the relay mails each welcome, once.
    @Test(.enabled(if: getuid() == 0, "chattr needs root"))
    func aMailOutageHoldsUpNoRegistrationAndTheWelcomesFollow() async throws {
        try await InProcessSystem.with(extraArguments: ["account-worker": ["--saga-deadline", "15"]]) { system in
            let requests = [try await system.request(email: "welcomed@example.com"), try await system.request(email: "queued@example.com")]
            let outbox = system.directory + "/outbox"
            let (stop, start): ([String], [String]) = system.backends.mailServer.map {
                (["/usr/bin/touch", $0.deferralFlag], ["/bin/rm", "-f", $0.deferralFlag])
            } ?? (["/usr/bin/chattr", "+i", outbox], ["/usr/bin/chattr", "-i", outbox])
            try runCommand(stop[0], Array(stop.dropFirst()))
            defer { _ = try? runCommand(start[0], Array(start.dropFirst())) }
            try await system.publish(requests)
            let outcomes = try await system.waitForOutcomes(requests.map(\.registrationId), timeout: .seconds(30))
            for request in requests {
                guard case .registrationCompleted = outcomes[request.registrationId]?.first else {
                    Issue.record("\(request.email) while mail was down: \(String(describing: outcomes[request.registrationId]))")
                    continue
                }
            }
            #expect(try system.emails(kind: "welcome").isEmpty, "a welcome went out while mail was down")
            try await Task.sleep(for: .seconds(3))
            try runCommand(start[0], Array(start.dropFirst()))
            let deadline = ContinuousClock.now + .seconds(30)
            while try system.emails(kind: "welcome").count < requests.count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            try await Task.sleep(for: .seconds(2))
            for request in requests {
                #expect(try system.emails(kind: "welcome").filter { $0.contains("Message-ID: <welcome.\(request.registrationId)@") }.count == 1,
                        "\(request.email) was not welcomed once mail was back")
            }
        }
    }
}
