import AccountChanges
import Domain
import Foundation
import SignIn
@testable import TestSupport
import Testing
import Verification

/// New passwords against the blocklist, and reset codes against the per-account code count.
extension AccountChangeStepTests {
    var strictStep: AccountChangeStep {
        AccountChangeStep(accounts: accounts, passwords: PasswordCheck(accounts: accounts, vault: FakeVault()),
                          codes: CodeVerifier(codes: codes, secrets: secrets), tokens: tokens, mailer: mailer, seals: seals,
                          rules: RegistrationRules(blocklist: FakeBlocklist()), clock: clock.closure)
    }

    func reset(_ id: String, code: String, to password: String = "remembered password") -> Event {
        .passwordResetRequested(PasswordResetRequested(requestId: id, email: "ada@example.com", sealedCode: sealed(code, .code, id),
                                                       sealedNewPassword: sealed(password, .newPassword, id), replyKey: replyKey))
    }

    @Test(arguments: FakeBlocklist.common.sorted())
    func aCommonNewPasswordIsRefusedOnChangeAndReset(password: String) throws {
        #expect(failure(try strictStep.handle(passwordChange("change", old: "old password", new: password))) == .passwordTooCommon)
        codes.issue("123456", to: "ada@example.com", .resetPassword, secrets: secrets, at: clock.now)
        #expect(failure(try strictStep.handle(reset("reset", code: "123456", to: password))) == .passwordTooCommon)
        #expect(try accounts.account(uid: uid)?.passwordHash == "hash:old password")
        #expect(failure(try strictStep.handle(reset("reset-2", code: "123456"))) == nil, "a long passphrase is accepted")
    }

    @Test func wrongResetCodesLockTheResetPathWithBackOff() throws {
        codes.issue("123456", to: "ada@example.com", .resetPassword, secrets: secrets, at: clock.now)
        for guess in 1...5 { #expect(failure(try step.handle(reset("wrong-\(guess)", code: "00000\(guess)"))) == .invalidCredentials) }
        #expect(accounts.failures(uid: uid, of: .code).lockedUntil == clock.now.addingTimeInterval(60))
        codes.issue("654321", to: "ada@example.com", .resetPassword, secrets: secrets, at: clock.now)
        #expect(failure(try step.handle(reset("locked", code: "654321"))) == .invalidCredentials)
        clock.advance(by: 60)
        #expect(failure(try step.handle(reset("later", code: "654321"))) == nil)
        #expect(accounts.failures(uid: uid, of: .code) == SignInFailures())
    }
}
