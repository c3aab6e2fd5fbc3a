import AccountChanges
import Domain
import Foundation
import Registration
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
        try codes.issue("123456", to: "ada@example.com", .resetPassword, secrets: secrets, at: clock.now)
        #expect(failure(try strictStep.handle(reset("reset", code: "123456", to: password))) == .passwordTooCommon)
        #expect(try accounts.account(uid: uid)?.passwordHash == "hash:old password")
        #expect(failure(try strictStep.handle(reset("reset-2", code: "123456"))) == nil, "a long passphrase is accepted")
    }

    /// An operator's disable or forced reset committed after a change was authenticated and before it began wins: the change
    /// is refused as if it had come after (`account_disabled` for a disabled account, else `invalid_credentials`) and
    /// changes nothing.
    @Test(arguments: [AccountStatus.disabled, .active])
    func anOperatorsChangeAfterTheAuthenticationWins(operatorLeaves status: AccountStatus) throws {
        try codes.issue("123456", to: "ada@example.com", .resetPassword, secrets: secrets, at: clock.now)
        try codes.issue("654321", to: "new@example.com", .changeEmail, secrets: secrets, at: clock.now)
        let requests = [passwordChange("change", old: "old password"), reset("reset", code: "123456"),
                        emailChange("email", to: "new@example.com", code: "654321")]
        for request in requests {
            accounts.beforeNextBegin.withLock { hook in
                hook = { accounts in
                    accounts.setStatus(status, of: "uid-ada")
                    _ = try? accounts.replacePasswordHash(uid: "uid-ada", from: "hash:old password", to: "hash:operator's reset")
                }
            }
            #expect(failure(try step.handle(request)) == (status == .disabled ? .accountDisabled : .invalidCredentials))
            let account = try #require(try accounts.account(uid: uid))
            #expect(account.passwordHash == "hash:operator's reset" && account.email == "ada@example.com" && account.status == status)
            #expect(try accounts.change(requestId: request.key) == nil && !sessionRevoked)
            accounts.setStatus(.active, of: uid)
            #expect(try accounts.replacePasswordHash(uid: uid, from: "hash:operator's reset", to: "hash:old password"))
        }
    }

    @Test func wrongResetCodesLockTheResetPathWithBackOff() throws {
        try codes.issue("123456", to: "ada@example.com", .resetPassword, secrets: secrets, at: clock.now)
        for guess in 1...5 { #expect(failure(try step.handle(reset("wrong-\(guess)", code: "00000\(guess)"))) == .invalidCredentials) }
        #expect(accounts.failures(uid: uid, of: .code).lockedUntil == clock.now.addingTimeInterval(60))
        try codes.issue("654321", to: "ada@example.com", .resetPassword, secrets: secrets, at: clock.now)
        #expect(failure(try step.handle(reset("locked", code: "654321"))) == .invalidCredentials)
        clock.advance(by: 60)
        #expect(failure(try step.handle(reset("later", code: "654321"))) == nil)
        #expect(accounts.failures(uid: uid, of: .code) == SignInFailures())
    }
}
