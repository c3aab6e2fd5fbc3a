import AccountChanges
import Courier
import Domain
import Foundation
import Registration
import SignIn
@testable import TestSupport
import Testing
import Verification

/// The account-change step on the account and token stores' fakes and SQLite code and seal stores, with a manual clock:
/// password change and reset, the email change saga with its compensation and deadline, notices, and redelivered requests.
@Suite(.tags(.unit)) struct AccountChangeStepTests {
    let accounts = InMemoryAccountStore()
    let codes = TemporaryCodeStore()
    let secrets = FakeCodeSecrets()
    let tokens = InMemoryTokenStore()
    let mailer = RecordingMailer()
    let clock = ManualClock()
    let uid = "uid-ada"
    let ledger = TemporarySealLedger()
    let replyKey = "key:ada"
    let progress: ProgressWatch

    var seals: SealOpener { SealOpener(vault: FakeVault(), ledger: ledger, clock: clock.closure) }

    var step: AccountChangeStep {
        AccountChangeStep(accounts: accounts, passwords: PasswordCheck(accounts: accounts, vault: FakeVault()),
                          codes: CodeVerifier(codes: codes, secrets: secrets), tokens: tokens, mailer: mailer, seals: seals,
                          clock: clock.closure, progress: progress)
    }

    /// `secret` sealed for `purpose` in request `id` of `email`, with this suite's reply key, now.
    func sealed(_ secret: String, _ purpose: SealedSecret.Purpose, _ id: String, _ email: String = "ada@example.com") -> String {
        FakeVault.sealed(secret, purpose, SealContext(requestId: id, email: email, replyKey: replyKey), at: clock.now)
    }

    init() throws {
        progress = ProgressWatch(uptime: clock.uptime, maximumGap: .seconds(3_600))
        accounts.addActiveAccount(uid: uid, email: "ada@example.com", passwordHash: "hash:old password", at: clock.now)
        try tokens.store(RefreshToken(digest: "d", family: "session", uid: uid, issuedBy: "s", issuedAt: clock.now,
                                      expiresAt: clock.now.addingTimeInterval(3600)))
    }

    func passwordChange(_ id: String, old: String, new: String = "new password") -> Event {
        .passwordChangeRequested(PasswordChangeRequested(requestId: id, email: "ADA@example.com", sealedPassword: sealed(old, .reauthentication, id),
                                                         sealedNewPassword: sealed(new, .newPassword, id), replyKey: replyKey))
    }

    func emailChange(_ id: String, to newEmail: String, code: String = "123456") -> Event {
        .emailChangeRequested(EmailChangeRequested(requestId: id, email: "ada@example.com", sealedPassword: sealed("old password", .reauthentication, id),
                                                   newEmail: newEmail, sealedCode: sealed(code, .code, id), replyKey: replyKey))
    }

    func failure(_ events: [Event]) -> ReasonCode? {
        guard case .accountChangeFailed(let failed) = events.first, events.count == 1 else { return nil }
        return failed.reason
    }

    var sessionRevoked: Bool { (try? tokens.token(digest: "d"))??.familyRevoked == true }

    @Test func aPasswordChangeNeedsTheOldPasswordAndSignsEverySessionOut() throws {
        #expect(failure(try step.dispatch(passwordChange("wrong", old: "not it"))) == .invalidCredentials)
        #expect(try accounts.account(uid: uid)?.passwordHash == "hash:old password")
        #expect(failure(try step.dispatch(passwordChange("short", old: "old password", new: "short"))) == .passwordTooShort)
        #expect(!sessionRevoked && mailer.messages.isEmpty)

        let completed = Event.accountChangeCompleted(AccountChangeCompleted(requestId: "right", change: .changePassword))
        #expect(try step.dispatch(passwordChange("right", old: "old password")) == [completed])
        #expect(try accounts.account(uid: uid)?.passwordHash == "hash:new password")
        #expect(sessionRevoked)
        #expect(mailer.messages.map(\.to) == ["ada@example.com"] && mailer.messages[0].messageId == "notice.right@registrar.local")
        // A redelivery answers the same, changes nothing, and repeats the idempotent notice (same Message-ID).
        #expect(try step.dispatch(passwordChange("right", old: "new password", new: "third password")) == [completed])
        #expect(try accounts.account(uid: uid)?.passwordHash == "hash:new password")
        #expect(Set(mailer.messages.map(\.messageId)) == ["notice.right@registrar.local"])
    }

    @Test func aResetCodeSetsANewPasswordAndClearsTheLockout() throws {
        try codes.issue("123456", to: "ada@example.com", .resetPassword, secrets: secrets, at: clock.now)
        for attempt in 1...5 { _ = try PasswordCheck(accounts: accounts, vault: FakeVault()).authenticate(email: "ada@example.com", password: "\(attempt)", at: clock.now) }
        let reset = { (id: String, code: String) in
            Event.passwordResetRequested(PasswordResetRequested(requestId: id, email: "ada@example.com", sealedCode: self.sealed(code, .code, id),
                                                                sealedNewPassword: self.sealed("remembered password", .newPassword, id),
                                                                replyKey: self.replyKey))
        }
        #expect(failure(try step.dispatch(reset("wrong", "654321"))) == .invalidCredentials)
        #expect(try step.dispatch(reset("right", "123456")) == [.accountChangeCompleted(AccountChangeCompleted(requestId: "right", change: .resetPassword))])
        #expect(try accounts.account(uid: uid)?.passwordHash == "hash:remembered password")
        #expect(accounts.failures(uid: uid) == SignInFailures())
        #expect(sessionRevoked)
    }

    @Test func anEmailChangeMovesTheAccountThenTheProfileAndNotifiesTheOldAddress() throws {
        try codes.issue("123456", to: "new@example.com", .changeEmail, secrets: secrets, at: clock.now)
        // The account's next revision after its registration's last step.
        let asked = Event.updateProfileEmail(ProfileEmail(requestId: "move", uid: uid, email: "new@example.com", step: "awaiting_profile", revision: 2))
        #expect(try step.dispatch(emailChange("move", to: "New@example.com")) == [asked])
        #expect(try accounts.account(uid: uid)?.email == "new@example.com", "the account reserves the new email first")
        #expect(try step.dispatch(emailChange("move", to: "New@example.com")) == [asked], "a redelivery asks again")
        let completed = Event.accountChangeCompleted(AccountChangeCompleted(requestId: "move", change: .changeEmail))
        let updated = Event.profileEmailUpdated(ProfileEmail(requestId: "move", uid: uid, email: "new@example.com", step: "awaiting_profile", revision: 2))
        #expect(try step.dispatch(updated) == [completed])
        #expect(try step.dispatch(updated) == [completed])
        #expect(try accounts.change(requestId: "move")?.stage == .completed)
        #expect(mailer.messages.map(\.to) == ["ada@example.com", "ada@example.com"])
        #expect(mailer.messages[0].text.contains("new@example.com"))
        #expect(sessionRevoked, "an email change ends every session")
        #expect(try accounts.account(uid: uid)?.notBefore == clock.now)
    }

    @Test func aProfileRefusingTheEmailGivesTheAccountItsOldOneBack() throws {
        try codes.issue("123456", to: "new@example.com", .changeEmail, secrets: secrets, at: clock.now)
        _ = try step.dispatch(emailChange("move", to: "new@example.com"))
        let rejected = Event.profileEmailRejected(ProfileEmailRejected(requestId: "move", uid: uid, reason: .profileStoreRejected, message: "m"))
        #expect(failure(try step.dispatch(rejected)) == .profileStoreRejected)
        #expect(try accounts.account(uid: uid)?.email == "ada@example.com")
        #expect(mailer.messages.isEmpty)
    }

    /// A profile worker's reply for no change, or for another uid than the change's, changes nothing
    /// and is refused as `unknown_saga` or `reply_mismatch`.
    @Test func repliesForNoChangeOrAnotherUidAreRefused() throws {
        try codes.issue("123456", to: "new@example.com", .changeEmail, secrets: secrets, at: clock.now)
        _ = try step.dispatch(emailChange("move", to: "new@example.com"))
        let change = try accounts.change(requestId: "move")
        func refusal(_ reply: Event) -> DeadLetterReason? {
            do { _ = try step.dispatch(reply) } catch let error as UntrustedEvent { return error.reason } catch { return nil }
            return nil
        }
        #expect(refusal(.profileEmailUpdated(ProfileEmail(requestId: "nope", uid: uid, email: "new@example.com", step: "awaiting_profile", revision: 4))) == .unknownSaga)
        #expect(refusal(.profileEmailRejected(ProfileEmailRejected(requestId: "nope", uid: uid, reason: .profileInvalid, message: "m")))
            == .unknownSaga)
        #expect(refusal(.profileEmailUpdated(ProfileEmail(requestId: "move", uid: "victim", email: "new@example.com", step: "awaiting_profile", revision: 4))) == .replyMismatch)
        #expect(refusal(.profileEmailRejected(ProfileEmailRejected(requestId: "move", uid: "victim", reason: .profileInvalid, message: "m")))
            == .replyMismatch)
        #expect(refusal(.profileEmailWaiting(ProfileEmailWaiting(requestId: "nope", uid: uid))) == .unknownSaga)
        #expect(refusal(.profileEmailWaiting(ProfileEmailWaiting(requestId: "move", uid: "victim"))) == .replyMismatch)
        #expect(try accounts.change(requestId: "move") == change)
        #expect(try accounts.account(uid: uid)?.email == "new@example.com")
        #expect(mailer.messages.isEmpty)
    }

    @Test func anEmailChangePastItsDeadlineSetsTheProfileBackThenFails() throws {
        try codes.issue("123456", to: "new@example.com", .changeEmail, secrets: secrets, at: clock.now)
        _ = try step.dispatch(emailChange("move", to: "new@example.com"))
        #expect(try step.expireChanges(stalledFor: .seconds(120)).isEmpty)
        clock.step(by: 600)
        #expect(try step.expireChanges(stalledFor: .seconds(120)).isEmpty, "a wall-clock step is no time without progress")
        clock.advance(by: 121)
        #expect(try step.expireChanges(stalledFor: .seconds(120))
            == [.updateProfileEmail(ProfileEmail(requestId: "move", uid: uid, email: "ada@example.com", step: "compensating", revision: 3))])
        #expect(try accounts.change(requestId: "move")?.stage == .compensating)
        #expect(try accounts.account(uid: uid)?.email == "new@example.com", "the account follows the profile back")
        #expect(failure(try step.dispatch(.profileEmailUpdated(ProfileEmail(requestId: "move", uid: uid, email: "ada@example.com", step: "compensating", revision: 3))))
            == .deadlineExceeded)
        #expect(try accounts.account(uid: uid)?.email == "ada@example.com")
    }

    /// Issue 23 point 6: the profile worker waiting for its failing store sends the heartbeat of its `UpdateProfileEmail`
    /// (`ProfileEmailStep.heartbeat(of:)`), which keeps every email change waiting for its profile alive through a
    /// 10-minute outage, publishing and changing nothing; the deadline then counts from the last heartbeat.
    @Test func theWaitingProfileWorkersHeartbeatKeepsAnEmailChangeAlive() throws {
        try codes.issue("123456", to: "new@example.com", .changeEmail, secrets: secrets, at: clock.now)
        let asked = try step.dispatch(emailChange("move", to: "new@example.com"))
        let beats = ProfileEmailStep(profiles: TemporaryProfileStore()).heartbeat(of: try #require(asked.first))
        #expect(beats == [.profileEmailWaiting(ProfileEmailWaiting(requestId: "move", uid: uid))])
        let waiting = try accounts.change(requestId: "move")
        for _ in 0..<20 {
            clock.advance(by: 30)
            #expect(try beats.flatMap(step.dispatch).isEmpty, "a heartbeat publishes nothing")
            #expect(try step.expireChanges(stalledFor: .seconds(120)).isEmpty, "alive at \(clock.now)")
        }
        #expect(try accounts.change(requestId: "move") == waiting, "a heartbeat changes nothing")
        clock.advance(by: 119)
        #expect(try step.expireChanges(stalledFor: .seconds(120)).isEmpty)
        clock.advance(by: 1)
        #expect(try step.expireChanges(stalledFor: .seconds(120)).first?.kind == .updateProfileEmail, "undone 120 s after the last heartbeat")
    }

    @Test func anEmailChangeRefusesATakenAnUnchangedOrAnUnprovenAddress() throws {
        accounts.addActiveAccount(uid: "uid-other", email: "taken@example.com", passwordHash: "hash:other password", at: clock.now)
        try codes.issue("123456", to: "taken@example.com", .changeEmail, secrets: secrets, at: clock.now)
        #expect(failure(try step.dispatch(emailChange("taken", to: "Taken@example.com"))) == .emailTaken)
        #expect(failure(try step.dispatch(emailChange("same", to: "ada@example.com"))) == .emailUnchanged)
        #expect(failure(try step.dispatch(emailChange("unproven", to: "free@example.com"))) == .invalidCredentials)
        #expect(try accounts.account(uid: uid)?.email == "ada@example.com")
    }

    @Test func malformedRequestsAreRefused() throws {
        #expect(failure(try step.dispatch(passwordChange("../x", old: "old password"))) == .requestIdInvalid)
        let unsealed = Event.passwordChangeRequested(PasswordChangeRequested(requestId: "r", email: "ada@example.com",
                                                                             sealedPassword: "plain", sealedNewPassword: "plain",
                                                                             replyKey: replyKey))
        #expect(failure(try step.dispatch(unsealed)) == .credentialUnsealable)
    }

    /// The change's writes may still roll back when `handle` returns (with its answer, under
    /// `AnswerOnce`), so the notice waits for `notify`, which runs after the commit.
    @Test func theNoticeIsMailedAfterTheChangeNotWithIt() throws {
        let request = passwordChange("right", old: "old password")
        #expect(try step.handle(request).count == 1)
        #expect(sessionRevoked && mailer.messages.isEmpty, "revoked with the change; not mailed yet")
        try step.notify(request)
        #expect(mailer.messages.map(\.messageId) == ["notice.right@registrar.local"])
        try step.notify(passwordChange("unknown", old: "old password"))
        #expect(mailer.messages.count == 1, "no notice for a change that did not happen")
    }

    @Test func aMailerFailingTransientlyIsRetriedWithTheSameNotice() throws {
        mailer.sends.arm(StoreError(.transient, "451 try again"), times: 1)
        #expect(throws: StoreError.self) { try step.dispatch(passwordChange("right", old: "old password")) }
        guard case .accountChangeCompleted = try step.dispatch(passwordChange("right", old: "new password"))[0] else {
            Issue.record("the retry was not answered as completed"); return
        }
        #expect(mailer.messages.map(\.messageId) == ["notice.right@registrar.local"])
    }
}
