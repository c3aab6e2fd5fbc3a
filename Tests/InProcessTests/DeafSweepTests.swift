import Domain
import Foundation
@testable import TestSupport
import Testing

/// Issue 23 point 6: the time the account worker cannot hear its broker counts against no saga. A registration waits
/// for its avatar (no image worker yet) while the broker is down for three times the saga deadline; the account
/// worker's store stays up, so its sweep could look all along, but whatever replies come, come through the broker.
/// Once the broker is back, the image worker comes, and the registration completes.
@Suite(.tags(.inProcess)) struct DeafSweepTests {
    @Test func aBrokerOutageLongerThanTheDeadlineUndoesNoSaga() async throws {
        try await InProcessSystem.with(workers: ["account-worker", "profile-worker", "code-dispatch-worker"],
                                       extraArguments: ["account-worker": ["--saga-deadline", "4"]]) { system in
            let request = try await system.request(email: "deaf@example.com")
            _ = try await system.send(.registrationRequested(request), awaiting: Topic.imageCommands)
            try system.cluster.setBrokerDown(1)
            try await Task.sleep(for: .seconds(12))
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
}
