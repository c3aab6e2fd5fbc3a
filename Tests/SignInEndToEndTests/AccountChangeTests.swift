import Domain
import Foundation
import Testing
import RegistrarClient

/// Account changes through the real workers: re-authentication, revocation, notices, and the email
/// change saga surviving SIGKILLs between the account update and the profile update.
@Suite(.serialized) struct AccountChangeTests {
    @Test func aPasswordChangeNeedsTheOldPasswordAndSignsEverySessionOut() async throws {
        try await LiveSystem.shared { system in
            _ = try await system.register("changer@example.com", password: "first password")
            let (_, session) = try await system.signIn(.password, email: "changer@example.com", secret: "first password")
            let refused = try await system.send(.passwordChangeRequested(PasswordChangeRequested(
                requestId: "wrong-old", email: "changer@example.com", sealedPassword: system.seal("not the password"),
                sealedNewPassword: system.seal("second password"))))
            #expect(reason(refused) == .invalidCredentials)
            guard case .tokenIssued = try await system.signIn(.password, email: "changer@example.com", secret: "first password").0 else {
                Issue.record("a refused change changed the password")
                return
            }
            let changed = try await system.send(.passwordChangeRequested(PasswordChangeRequested(
                requestId: "right-old", email: "changer@example.com", sealedPassword: system.seal("first password"),
                sealedNewPassword: system.seal("second password"))))
            guard case .accountChangeCompleted = changed else { Issue.record("change refused: \(changed)"); return }
            #expect(reason(try await system.signIn(.password, email: "changer@example.com", secret: "first password").0) == .invalidCredentials)
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: try #require(session).refreshToken).0) == .invalidCredentials)
            guard case .tokenIssued = try await system.signIn(.password, email: "changer@example.com", secret: "second password").0 else {
                Issue.record("the new password does not work")
                return
            }
            #expect(try system.email(kind: "notice", requestId: "right-old").contains("To: changer@example.com"))
        }
    }

    @Test func aResetCodeSetsANewPassword() async throws {
        try await LiveSystem.shared { system in
            _ = try await system.register("forgetful@example.com", password: "forgotten password")
            let code = try await system.code(for: "forgetful@example.com", .resetPassword)
            let reset = { (code: String) in
                Event.passwordResetRequested(PasswordResetRequested(requestId: UUID().uuidString, email: "forgetful@example.com",
                                                                    sealedCode: system.seal(code), sealedNewPassword: system.seal("remembered password")))
            }
            #expect(reason(try await system.send(reset(code == "123456" ? "654321" : "123456"))) == .invalidCredentials)
            guard case .accountChangeCompleted = try await system.send(reset(code)) else { Issue.record("reset refused"); return }
            guard case .tokenIssued = try await system.signIn(.password, email: "forgetful@example.com", secret: "remembered password").0 else {
                Issue.record("the reset password does not work")
                return
            }
        }
    }

    @Test func anEmailChangeRefusesATakenAddress() async throws {
        try await LiveSystem.shared { system in
            _ = try await system.register("first@example.com", password: "first password")
            _ = try await system.register("second@example.com", password: "second password")
            let code = try await system.code(for: "second@example.com", .changeEmail)
            let outcome = try await system.send(.emailChangeRequested(EmailChangeRequested(
                requestId: "taken", email: "first@example.com", sealedPassword: system.seal("first password"),
                newEmail: "Second@example.com", sealedCode: system.seal(code))))
            #expect(reason(outcome) == .emailTaken)
            #expect(try system.backends.accounts().account(email: "first@example.com") != nil)
            #expect(try system.audit().isEmpty)
        }
    }

    @Test func anEmailChangeStaysConsistentWhenWorkersAreKilledBetweenAccountAndProfile() async throws {
        try await LiveSystem.with { system in
            let uid = try await system.register("mover@example.com", password: "mover password")
            let code = try await system.code(for: "moved@example.com", .changeEmail)
            await system.kill("profile-worker")
            let request = Event.emailChangeRequested(EmailChangeRequested(
                requestId: "move-1", email: "mover@example.com", sealedPassword: system.seal("mover password"),
                newEmail: "moved@example.com", sealedCode: system.seal(code)))
            // The account worker has updated the account once it asks the profile worker to follow.
            let profileCommands = try OutcomeListener(topics: [Topic.profileCommands], configuration: system.kafka)
            let asked = try await profileCommands.message(keyed: "move-1", on: Topic.profileCommands, within: .seconds(60)) {
                try await system.client.publish(request)
            }
            guard case .updateProfileEmail = try asked?.event() else {
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
            guard case .tokenIssued = try await system.signIn(.password, email: "moved@example.com", secret: "mover password").0 else {
                Issue.record("cannot sign in with the new email")
                return
            }
        }
    }
}
