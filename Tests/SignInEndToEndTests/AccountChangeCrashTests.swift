import Domain
import Foundation
import RegistrarClient
@testable import TestSupport
import Testing

/// The email change saga through the real worker processes, surviving SIGKILLs between the account
/// update and the profile update.
@Suite(.tags(.live, .timed, .crash), .serialized) struct AccountChangeCrashTests {
    @Test func anEmailChangeStaysConsistentWhenWorkersAreKilledBetweenAccountAndProfile() async throws {
        try await LiveSystem.with { system in
            let uid = try await system.register("mover@example.com", password: "mover password by the quiet river")
            let code = try await system.code(for: "moved@example.com", .changeEmail)
            await system.kill("profile-worker")
            let request = Event.emailChangeRequested(system.client.emailChange(email: "mover@example.com", password: "mover password by the quiet river",
                newEmail: "moved@example.com", code: code, requestId: "move-1"))
            // The account worker has updated the account once it asks the profile worker to follow.
            guard case .updateProfileEmail = try await system.send(request, awaiting: Topic.profileCommands) else {
                Issue.record("no profile update asked for")
                return
            }
            await system.kill("account-worker")
            #expect(try system.backends.accounts().account(uid: uid)?.email == "moved@example.com")
            #expect(try system.backends.profiles().profile(uid: uid)?.email == "mover@example.com")

            let outcome = try await system.client.outcome(of: request, timeout: .seconds(60)) {
                try system.startWorker("account-worker")
                try system.startWorker("profile-worker")
            }
            guard case .accountChangeCompleted = outcome else { Issue.record("the email change did not complete"); return }
            #expect(try system.backends.accounts().account(uid: uid)?.email == "moved@example.com")
            #expect(try system.backends.profiles().profile(uid: uid)?.email == "moved@example.com")
            #expect(try system.audit().isEmpty)
            #expect(try system.email(kind: "notice", requestId: "move-1").contains("To: mover@example.com"))
            guard case .tokenIssued = try await system.signIn(.password, email: "moved@example.com", secret: "mover password by the quiet river").0 else {
                Issue.record("cannot sign in with the new email")
                return
            }
        }
    }
}
