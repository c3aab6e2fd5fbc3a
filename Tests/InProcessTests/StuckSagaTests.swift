import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// A registration whose next worker never comes is failed and compensated at its deadline (a short
/// one, passed on the workers' clock); when the worker finally comes back, its late work is undone
/// instead of resurrecting anything.
@Suite(.tags(.inProcess)) struct StuckSagaTests {
    @Test func aSagaPastItsDeadlineIsUndoneAndLateWorkIsIgnored() async throws {
        try await InProcessSystem.with(workers: ["account-worker", "profile-worker", "code-dispatch-worker"],
                                       extraArguments: ["account-worker": ["--saga-deadline", "2"]]) { system in
            let stuck = try await system.request(email: "stuck@example.com")
            // Once the account worker has asked for the avatar, the deadline passes on its clock.
            _ = try await system.send(.registrationRequested(stuck), awaiting: Topic.imageCommands)
            system.clock.advance(by: 3)
            let outcomes = try await system.waitForOutcomes([stuck.registrationId], timeout: .seconds(60))
            guard case .registrationFailed(let failed) = outcomes[stuck.registrationId]?.first else {
                Issue.record("no failure: \(String(describing: outcomes[stuck.registrationId]))"); return
            }
            #expect(failed.reason == .deadlineExceeded)
            #expect(try system.backends.accounts().account(email: "stuck@example.com") == nil, "the pending account is deleted")

            // The image worker comes back and stores the avatar it was asked for long ago: that late
            // step is undone (DeleteAvatar), and the outcome stays the failure.
            try system.startWorker("image-worker")
            let deadline = ContinuousClock.now + .seconds(60)
            var path: [String] = []
            while !path.contains("AvatarDeleted") && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(300))
                path = try await system.allTopicMessages().filter { $0.keyString == stuck.registrationId }
                    .compactMap { try? EventCodec.decode($0.value).type }
            }
            #expect(path.contains("AvatarStored"), "\(path)")
            #expect(path.contains("AvatarDeleted"), "\(path)")
            #expect(!path.contains("RegistrationCompleted"))
            #expect(try system.backends.objects().list(prefix: "ProfileImages/").isEmpty)
            #expect(try system.audit().isEmpty)
        }
    }
}
