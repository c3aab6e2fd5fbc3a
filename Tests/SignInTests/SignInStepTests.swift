import Domain
import Foundation
import Registration
import SignIn
@testable import TestSupport
import Testing
import Verification

/// The sign-in step on the account and token stores' fakes and SQLite code, profile and seal stores, with a manual clock:
/// password, code and refresh grants, the profile guard, lockout, and sign-ins that register their account through the saga.
@Suite(.tags(.unit)) struct SignInStepTests {
    let accounts = InMemoryAccountStore()
    let codes = TemporaryCodeStore()
    let secrets = FakeCodeSecrets()
    let profiles = TemporaryProfileStore()
    let tokens = InMemoryTokenStore()
    let minter = FakeMinter()
    let clock = ManualClock()
    let replyKey = "key:client"
    let ledger = TemporarySealLedger()
    let mailbox = FakeMailbox()
    let mailer = RecordingMailer()

    var registrations: RegistrationCoordinator { registrations(sealRecords: ledger) }
    var step: SignInStep { step(sealRecords: ledger) }

    /// The registration coordinator with `sealRecords` as its ledger of used seals.
    func registrations(sealRecords: TemporarySealLedger) -> RegistrationCoordinator {
        RegistrationCoordinator(accounts: accounts, vault: FakeVault(),
                                seals: SealOpener(vault: FakeVault(), ledger: sealRecords, clock: clock.closure), mailbox: mailbox,
                                clock: clock.closure)
    }

    /// The step with `sealRecords` as its ledger of used seals.
    func step(sealRecords: TemporarySealLedger) -> SignInStep {
        SignInStep(passwords: PasswordCheck(accounts: accounts, vault: FakeVault()), codes: CodeVerifier(codes: codes, secrets: secrets),
                   profiles: profiles, issuer: TokenIssuer(tokens: tokens, minter: minter, vault: FakeVault()),
                   registrations: registrations(sealRecords: sealRecords), mailer: mailer, clock: clock.closure)
    }

    /// An active account of `email` with a complete profile; its uid.
    func account(_ email: String, password: String) throws -> String {
        let uid = "uid-" + email
        accounts.addActiveAccount(uid: uid, email: email, passwordHash: "hash:" + password, at: clock.now)
        try profiles.write(Profile(name: "Ada", email: email, profileImage: "memory://i.jpg", isMapLocationEnabled: false), uid: uid, revision: 2)
        return uid
    }

    func request(_ grant: GrantType, _ email: String?, _ secret: String, id: String = UUID().uuidString,
                 replyKey: String? = nil) -> Event {
        let replyKey = replyKey ?? self.replyKey
        let sealed = FakeVault.sealed(secret, grant.sealPurpose, SealContext(requestId: id, email: email, replyKey: replyKey), at: clock.now)
        return .tokenRequested(TokenRequested(requestId: id, grantType: grant, email: email, sealedCredential: sealed, replyKey: replyKey))
    }

    /// The tokens of a `TokenIssued`, opened.
    func opened(_ events: [Event]) throws -> (issued: TokenIssued, tokens: TokenPair) {
        guard case .tokenIssued(let issued) = events.first, events.count == 1 else { throw Refused(events) }
        let json = try #require(issued.sealedTokens.split(separator: ":", maxSplits: 3).last)
        return (issued, try #require(TokenPair.opened(from: Array(json.utf8), answering: issued.requestId)))
    }

    func refusal(_ events: [Event]) -> RequestRefusal? {
        guard case .tokenRefused(let refused) = events.first, events.count == 1 else { return nil }
        return refused
    }

    @Test func aPasswordSignInIssuesTokensSealedToTheReplyKey() throws {
        let uid = try account("ada@example.com", password: "ada password")
        let (issued, pair) = try opened(try step.handle(request(.password, " ADA@example.com", "ada password", id: "s-1")))
        #expect(pair.uid == uid && !issued.accountCreated && issued.sealedTokens.hasPrefix("sealed-to:\(replyKey):"))
        #expect(pair.accessToken == "access:\(uid):900")
        #expect(tokens.tokens.map(\.family) == ["s-1"])
        #expect(try tokens.token(digest: "digest:" + pair.refreshToken)?.expiresAt == clock.now.addingTimeInterval(30 * 86400))
    }

    @Test func everyCredentialFailureGetsTheSameAnswer() throws {
        _ = try account("ada@example.com", password: "ada password")
        let wrong = try #require(refusal(try step.handle(request(.password, "ada@example.com", "wrong"))))
        let unknown = try #require(refusal(try step.handle(request(.password, "nobody@example.com", "ada password"))))
        let badCode = try #require(refusal(try step.handle(request(.email, "ada@example.com", "123456"))))
        let badToken = try #require(refusal(try step.handle(request(.refreshToken, nil, "refresh-9"))))
        for other in [unknown, badCode, badToken] {
            #expect(other.reason == .invalidCredentials && other.message == wrong.message)
        }
        #expect(refusal(try step.handle(request(.password, "ada@example.com", "x", id: "../bad")))?.reason == .requestIdInvalid)
        let keyless = Event.tokenRequested(TokenRequested(requestId: "r", grantType: .password, email: "ada@example.com",
                                                          sealedCredential: "sealed:{}", replyKey: "nope"))
        #expect(refusal(try step.handle(keyless))?.reason == .replyKeyInvalid)
        let unsealed = Event.tokenRequested(TokenRequested(requestId: "r", grantType: .password, email: "ada@example.com",
                                                           sealedCredential: "plain", replyKey: replyKey))
        #expect(refusal(try step.handle(unsealed))?.reason == .credentialUnsealable)
        #expect(tokens.tokens.isEmpty)
    }

    @Test func fiveFailuresLockTheAccountWithDoublingBackOff() throws {
        let uid = try account("ada@example.com", password: "ada password")
        for attempt in 1...5 { _ = try step.handle(request(.password, "ada@example.com", "guess \(attempt)")) }
        #expect(accounts.failures(uid: uid).lockedUntil == clock.now.addingTimeInterval(60))
        #expect(refusal(try step.handle(request(.password, "ada@example.com", "ada password")))?.reason == .invalidCredentials)
        clock.advance(by: 60)
        #expect(refusal(try step.handle(request(.password, "ada@example.com", "guess 6")))?.reason == .invalidCredentials)
        #expect(accounts.failures(uid: uid).lockedUntil == clock.now.addingTimeInterval(120), "the sixth failure doubles the lock")
        clock.advance(by: 60)
        #expect(refusal(try step.handle(request(.password, "ada@example.com", "ada password")))?.reason == .invalidCredentials)
        clock.advance(by: 61)
        _ = try opened(try step.handle(request(.password, "ada@example.com", "ada password")))
        #expect(accounts.failures(uid: uid) == SignInFailures())
    }

    @Test func aCodeSignsAnAccountInOnce() throws {
        let uid = try account("ada@example.com", password: "ada password")
        try codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        let first = try step.handle(request(.email, "ada@example.com", "123456", id: "s-1"))
        #expect(try opened(first).tokens.uid == uid)
        #expect(refusal(try step.handle(request(.email, "ada@example.com", "123456", id: "s-2")))?.reason == .invalidCredentials)
        _ = try opened(try step.handle(request(.email, "ada@example.com", "123456", id: "s-1")))
    }

    /// Attack 6: with no memo of the answer, a code sign-in or a refresh replayed with the same request
    /// id and another reply key is refused; the refresh replay revokes the family.
    @Test func aReplayedRequestIdWithAnotherReplyKeyIsRefused() throws {
        let uid = try account("ada@example.com", password: "ada password")
        try codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        let signIn = request(.email, "ada@example.com", "123456", id: "s-1")
        let pair = try opened(try step.handle(signIn)).tokens
        guard case .tokenRequested(var replayed) = signIn else { return }
        replayed.replyKey = "key:attacker"
        #expect(refusal(try step.handle(.tokenRequested(replayed)))?.reason == .invalidCredentials, "its seal is for the first reply key")
        // With the records of used seals gone too, a request sealed anew for the other key meets the code's own record.
        let resealed = request(.email, "ada@example.com", "123456", id: "s-1", replyKey: "key:attacker")
        #expect(refusal(try step(sealRecords: TemporarySealLedger()).handle(resealed))?.reason == .invalidCredentials)

        let rotation = request(.refreshToken, nil, pair.refreshToken, id: "rotate-1")
        _ = try opened(try step.handle(rotation))
        guard case .tokenRequested(var replayedRotation) = rotation else { return }
        replayedRotation.replyKey = "key:attacker"
        #expect(refusal(try step.handle(.tokenRequested(replayedRotation)))?.reason == .invalidCredentials, "its seal is for the first reply key")
        let resealedRotation = request(.refreshToken, nil, pair.refreshToken, id: "rotate-1", replyKey: "key:attacker")
        #expect(refusal(try step(sealRecords: TemporarySealLedger()).handle(resealedRotation))?.reason == .invalidCredentials)
        #expect(tokens.tokens.allSatisfy { $0.familyRevoked }, "the replay revoked the family")
        #expect(tokens.tokens.allSatisfy { $0.uid == uid })
    }

    /// Issue 21 point 9: a request id answered already (the memo gives its first answer again) presenting the token
    /// it rotated, sealed for another reply key, revokes the family; the same request again with its own key, or any
    /// other token, changes nothing.
    @Test func aRotatedTokenPresentedAgainUnderItsRequestIdWithAnotherReplyKeyRevokesTheFamily() throws {
        _ = try account("ada@example.com", password: "ada password")
        let pair = try opened(try step.handle(request(.password, "ada@example.com", "ada password", id: "p-1"))).tokens
        let rotation = request(.refreshToken, nil, pair.refreshToken, id: "rotate-1")
        let rotated = try opened(try step.handle(rotation)).tokens
        try step.repeated(rotation)
        try step.repeated(request(.refreshToken, nil, rotated.refreshToken, id: "rotate-1", replyKey: "key:attacker"))
        #expect(!tokens.tokens.contains { $0.familyRevoked }, "a redelivery, or a token this request did not rotate, changes nothing")
        try step.repeated(request(.refreshToken, nil, pair.refreshToken, id: "rotate-1", replyKey: "key:attacker"))
        #expect(tokens.tokens.allSatisfy { $0.familyRevoked }, "the reuse revoked the family")
        #expect(refusal(try step.handle(request(.refreshToken, nil, rotated.refreshToken, id: "rotate-2")))?.reason == .invalidCredentials)
    }

    @Test func aCodeForANewEmailRegistersTheAccountAndIsAnsweredWhenItCompletes() throws {
        try codes.issue("123456", to: "new.person@example.com", .register, secrets: secrets, at: clock.now)
        let signIn = request(.email, "New.Person@example.com", "123456", id: "signup-1")
        let started = try step.handle(signIn)
        guard case .storeAvatar(let command) = started.first, started.count == 1 else { Issue.record("\(started)"); return }
        let pending = try #require(try tokens.pending(requestId: "signup-1"))
        #expect(command.registrationId == pending.registrationId && command.registrationId != "signup-1", "the server's registration id")
        #expect(command.avatar == nil && pending.replyKey == replyKey && pending.email == "new.person@example.com")
        #expect(try step.handle(signIn) == started, "a redelivery asks again, creating nothing twice")
        let account = try #require(try accounts.account(email: "new.person@example.com"))
        #expect(account.status == .pending && account.passwordHash.isEmpty)

        let asked = try registrations.handle(.avatarStored(AvatarStored(registrationId: command.registrationId, imageId: command.imageId,
                                                                        url: "memory://i.jpg")))
        guard case .writeProfile(let write) = asked.first else { Issue.record("\(asked)"); return }
        #expect(write.profile.name == "new.person")
        let written = try ProfileStep(profiles: profiles).handle(.writeProfile(write))
        let completed = try registrations.handle(try #require(written.first))
        let (issued, pair) = try opened(try step.handle(try #require(completed.first)))
        #expect(issued.requestId == "signup-1" && pair.uid == account.uid && issued.accountCreated)
        #expect(refusal(try step.handle(request(.password, "new.person@example.com", "")))?.reason == .invalidCredentials,
                "a code-made account has no password")
    }

    @Test func aFailedRegistrationRefusesItsSignInWithTheSagasReasonAndOthersAreIgnored() throws {
        try tokens.recordPending(PendingSignIn(requestId: "signup-1", registrationId: "reg-1", email: "new@example.com",
                                               replyKey: replyKey, createdAt: clock.now))
        let forged = Event.registrationFailed(RegistrationFailed(registrationId: "reg-1", reason: .imageCorrupt, message: "forged"))
        #expect(throws: UntrustedEvent.unknownSaga("RegistrationFailed for registration reg-1, which was never started")) {
            try step.handle(forged)
        }
        _ = try accounts.recordFailed(SagaRecord(registrationId: "reg-1", uid: "u", email: "new@example.com", name: "new",
                                                 isMapLocationEnabled: false, imageId: "i", stage: .failed,
                                                 failure: Failure(.emailTaken, "taken"), startedAt: clock.now, updatedAt: clock.now))
        #expect(try step.handle(forged) == [.tokenRefused(RequestRefusal(requestId: "signup-1", reason: .emailTaken, message: "taken"))])
        #expect(try step.handle(.registrationFailed(RegistrationFailed(registrationId: "other", reason: .emailTaken, message: "m"))).isEmpty)
        #expect(try step.handle(.registrationCompleted(RegistrationCompleted(registrationId: "other", sealedResult: "s"))).isEmpty)
    }

    /// A sign-in's registration past its deadline while it awaits its avatar is answered then, and stays compensating
    /// until the avatar is deleted: its one RegistrationFailed refuses the sign-in with the deadline's reason (rather
    /// than being dead-lettered as a failure of a saga not failed yet).
    @Test func aRegistrationAnsweredAtItsDeadlineRefusesItsSignIn() throws {
        try codes.issue("123456", to: "late@example.com", .register, secrets: secrets, at: clock.now)
        let started = try step.handle(request(.email, "late@example.com", "123456", id: "signup-late"))
        guard case .storeAvatar(let command) = started.first else { Issue.record("\(started)"); return }
        let sweeper = RegistrationCoordinator(accounts: accounts, vault: FakeVault(),
                                              seals: SealOpener(vault: FakeVault(), ledger: ledger, clock: clock.closure), mailbox: mailbox,
                                              clock: clock.closure, progress: ProgressWatch(uptime: clock.uptime, maximumGap: .seconds(3_600)))
        #expect(try sweeper.expireSagas(stalledFor: .seconds(120)).isEmpty)
        clock.advance(by: 121)
        let expired = try sweeper.expireSagas(stalledFor: .seconds(120))
        #expect(try accounts.saga(command.registrationId)?.stage == .compensating)
        let answer = try #require(expired.first)
        let refused = try #require(refusal(try step.handle(answer)))
        #expect(refused.requestId == "signup-late" && refused.reason == .deadlineExceeded)
    }

    /// Registers `email` with a password through the whole saga; its registration id and uid.
    func registered(_ email: String, id: String) throws -> (registrationId: String, uid: String) {
        let context = SealContext(requestId: id, email: email, replyKey: "key:victim")
        mailbox.mail("246810", to: email)
        let request = Event.registrationRequested(RegistrationRequested(
            registrationId: id, email: email, name: "Vic", sealedPassword: FakeVault.sealed("victim password", .registrationPassword, context, at: clock.now),
            sealedCode: FakeVault.sealed("246810", .code, context, at: clock.now), replyKey: context.replyKey, avatar: nil, isMapLocationEnabled: false))
        let completed = try complete(try #require(try registrations.handle(request).first))
        return (completed.registrationId, completed.uid)
    }

    /// Runs a registration from its `StoreAvatar` to its outcome; its registration id, uid and outcome.
    func complete(_ storeAvatar: Event) throws -> (registrationId: String, uid: String, completed: Event) {
        guard case .storeAvatar(let command) = storeAvatar else { throw Refused([storeAvatar]) }
        let asked = try registrations.handle(.avatarStored(AvatarStored(registrationId: command.registrationId, imageId: command.imageId,
                                                                        url: "memory://\(command.imageId).jpg")))
        let written = try ProfileStep(profiles: profiles).handle(try #require(asked.first))
        let profileWritten = try #require(written.first)
        let outcome = try #require(try registrations.handle(profileWritten).first)
        guard case .registrationCompleted(let completed) = outcome, let saga = try accounts.saga(completed.registrationId) else {
            throw Refused(written)
        }
        return (completed.registrationId, saga.uid, outcome)
    }

    /// Attack 1: a code sign-in whose request id is the victim's registration id registers the
    /// attacker's own account under a new id; the victim's saga, account and profile are untouched.
    @Test func aRequestIdThatIsAnotherRegistrationsIdRegistersOnlyTheCodesEmail() throws {
        let victim = try registered("victim@example.com", id: "victim-reg")
        let victimSaga = try accounts.saga("victim-reg")
        try codes.issue("123456", to: "attacker@example.com", .register, secrets: secrets, at: clock.now)
        let started = try step.handle(request(.email, "attacker@example.com", "123456", id: "victim-reg"))
        guard case .storeAvatar(let command) = started.first, started.count == 1 else { Issue.record("\(started)"); return }
        #expect(command.registrationId != "victim-reg")
        #expect(tokens.tokens.isEmpty)
        let attacker = try complete(started[0])
        let (issued, pair) = try opened(try step.handle(attacker.completed))
        #expect(issued.requestId == "victim-reg" && pair.uid == attacker.uid && pair.uid != victim.uid)
        #expect(try accounts.saga("victim-reg") == victimSaga)
        #expect(try accounts.account(uid: victim.uid)?.email == "victim@example.com")
        #expect(tokens.tokens.allSatisfy { $0.uid == attacker.uid })
    }

    /// Attack 3: a forged `RegistrationCompleted` for the attacker's own pending sign-in, its result naming the
    /// victim's uid, issues nothing, before and after the real completion; tokens go to the saga's uid.
    @Test func aForgedCompletionNamingAnotherUidIssuesNothing() throws {
        let victim = try registered("victim@example.com", id: "victim-reg")
        try codes.issue("123456", to: "attacker@example.com", .register, secrets: secrets, at: clock.now)
        let started = try step.handle(request(.email, "attacker@example.com", "123456", id: "x-1"))
        guard case .storeAvatar(let command) = started.first else { Issue.record("\(started)"); return }
        let profile = Profile(name: "v", email: "victim@example.com", profileImage: "i", isMapLocationEnabled: false)
        let victimResult = RegistrationResult(requestId: command.registrationId, uid: victim.uid, profile: profile).sealedJSON
        func forged(_ registrationId: String) -> Event {
            .registrationCompleted(RegistrationCompleted(registrationId: registrationId, sealedResult: FakeVault().seal(victimResult, to: replyKey)!))
        }
        #expect(try step.handle(forged("x-1")).isEmpty, "the request id is no registration id")
        #expect(throws: UntrustedEvent.self, "the saga has not completed") { try step.handle(forged(command.registrationId)) }
        let attacker = try complete(started[0])
        #expect(throws: UntrustedEvent.self, "the saga's outcome names the attacker") { try step.handle(forged(command.registrationId)) }
        #expect(tokens.tokens.isEmpty)
        let (_, pair) = try opened(try step.handle(attacker.completed))
        #expect(pair.uid == attacker.uid)
        #expect(tokens.tokens.allSatisfy { $0.uid == attacker.uid })
    }

    @Test func refreshTokensRotateAndAReusedOneRevokesTheFamily() throws {
        _ = try account("ada@example.com", password: "ada password")
        let initial = try opened(try step.handle(request(.password, "ada@example.com", "ada password"))).tokens
        let rotation = request(.refreshToken, nil, initial.refreshToken, id: "rotate-1")
        let second = try opened(try step.handle(rotation)).tokens
        #expect(second.refreshToken != initial.refreshToken)
        _ = try opened(try step.handle(rotation))
        #expect(refusal(try step.handle(request(.refreshToken, nil, initial.refreshToken)))?.reason == .invalidCredentials)
        #expect(refusal(try step.handle(request(.refreshToken, nil, second.refreshToken)))?.reason == .invalidCredentials)
        #expect(tokens.tokens.allSatisfy { $0.familyRevoked })
        let other = try opened(try step.handle(request(.password, "ada@example.com", "ada password"))).tokens
        _ = try opened(try step.handle(request(.refreshToken, nil, other.refreshToken)))
    }

    @Test func anExpiredRefreshTokenIsRefused() throws {
        _ = try account("ada@example.com", password: "ada password")
        let pair = try opened(try step.handle(request(.password, "ada@example.com", "ada password"))).tokens
        clock.advance(by: 30 * 86400)
        #expect(refusal(try step.handle(request(.refreshToken, nil, pair.refreshToken)))?.reason == .invalidCredentials)
    }

    @Test func anIncompleteProfileCannotSignIn() throws {
        let uid = try account("ada@example.com", password: "ada password")
        try profiles.write(Profile(name: "Ada", email: "ada@example.com", profileImage: "", isMapLocationEnabled: false), uid: uid, revision: 3)
        #expect(refusal(try step.handle(request(.password, "ada@example.com", "ada password")))?.reason == .profileIncomplete)
        #expect(tokens.tokens.isEmpty)
    }
}

struct Refused: Error, CustomStringConvertible {
    var events: [Event]
    init(_ events: [Event]) { self.events = events }
    var description: String { "no tokens issued: \(events)" }
}
