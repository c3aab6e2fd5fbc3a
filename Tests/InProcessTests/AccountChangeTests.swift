import Domain
import Foundation
@testable import TestSupport
import Testing

/// Account changes through the real workers in process: re-authentication, revocation, notices, and
/// an email change refused for a taken address.
@Suite(.tags(.inProcess)) struct AccountChangeTests {
    @Test func aPasswordChangeNeedsTheOldPasswordAndSignsEverySessionOut() async throws {
        try await InProcessSystem.with { system in
            _ = try await system.register("changer@example.com", password: "first password by the quiet river")
            let (_, session) = try await system.signIn(.password, email: "changer@example.com", secret: "first password by the quiet river")
            let refused = try await system.send(.passwordChangeRequested(system.client.passwordChange(email: "changer@example.com", password: "not the password by the quiet river",
                newPassword: "second password by the quiet river", requestId: "wrong-old")))
            #expect(reason(refused) == .invalidCredentials)
            guard case .tokenIssued = try await system.signIn(.password, email: "changer@example.com", secret: "first password by the quiet river").0 else {
                Issue.record("a refused change changed the password")
                return
            }
            let changed = try await system.send(.passwordChangeRequested(system.client.passwordChange(email: "changer@example.com", password: "first password by the quiet river",
                newPassword: "second password by the quiet river", requestId: "right-old")))
            guard case .accountChangeCompleted = changed else { Issue.record("change refused: \(changed)"); return }
            #expect(reason(try await system.signIn(.password, email: "changer@example.com", secret: "first password by the quiet river").0) == .invalidCredentials)
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: try #require(session).refreshToken).0) == .invalidCredentials)
            guard case .tokenIssued = try await system.signIn(.password, email: "changer@example.com", secret: "second password by the quiet river").0 else {
                Issue.record("the new password does not work")
                return
            }
            #expect(try system.email(kind: "notice", requestId: "right-old").contains("To: changer@example.com"))
        }
    }

    @Test func aResetCodeSetsANewPassword() async throws {
        try await InProcessSystem.with { system in
            _ = try await system.register("forgetful@example.com", password: "forgotten password by the quiet river")
            let code = try await system.code(for: "forgetful@example.com", .resetPassword)
            let reset = { (code: String) in
                Event.passwordResetRequested(system.client.passwordReset(email: "forgetful@example.com", code: code,
                newPassword: "remembered password by the quiet river", requestId: UUID().uuidString))
            }
            #expect(reason(try await system.send(reset(code == "123456" ? "654321" : "123456"))) == .invalidCredentials)
            guard case .accountChangeCompleted = try await system.send(reset(code)) else { Issue.record("reset refused"); return }
            guard case .tokenIssued = try await system.signIn(.password, email: "forgetful@example.com", secret: "remembered password by the quiet river").0 else {
                Issue.record("the reset password does not work")
                return
            }
        }
    }

    @Test func anEmailChangeRefusesATakenAddress() async throws {
        try await InProcessSystem.with { system in
            _ = try await system.register("first@example.com", password: "first password by the quiet river")
            _ = try await system.register("second@example.com", password: "second password by the quiet river")
            let code = try await system.code(for: "second@example.com", .changeEmail)
            let outcome = try await system.send(.emailChangeRequested(system.client.emailChange(email: "first@example.com", password: "first password by the quiet river",
                newEmail: "Second@example.com", code: code, requestId: "taken")))
            #expect(reason(outcome) == .emailTaken)
            #expect(try system.backends.accounts().account(email: "first@example.com") != nil)
            #expect(try system.audit().isEmpty)
        }
    }
}
