import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// The account worker's registration saga on the account store's fake and a SQLite seal ledger: what each request and
/// reply publishes, what it leaves in the account store, and how failures, deadlines and redeliveries are answered.
@Suite(.tags(.unit)) struct RegistrationCoordinatorTests {
    let accounts = InMemoryAccountStore()
    let clock = ManualClock()
    let ledger = TemporarySealLedger()
    let progress: ProgressWatch
    let mailbox = FakeMailbox()
    var coordinator: RegistrationCoordinator {
        RegistrationCoordinator(accounts: accounts, vault: FakeVault(),
                                seals: SealOpener(vault: FakeVault(), ledger: ledger, clock: clock.closure), mailbox: mailbox,
                                clock: clock.closure, progress: progress)
    }

    init() {
        // The sweep looks when told to, not every 5 s: whatever time passes between two looks counts.
        progress = ProgressWatch(uptime: clock.uptime, maximumGap: .seconds(3_600))
        mailbox.mail("123456", to: "ada@example.com")
    }

    /// A registration of `email` with the register code `code` (by default the one mailed to ada@example.com; nil: none).
    func request(_ id: String = "r-1", email: String = " Ada@Example.com", password: String = "correct horse battery",
                 code: String? = "123456") -> Event {
        let context = SealContext(requestId: id, email: email, replyKey: "key:ada")
        return .registrationRequested(RegistrationRequested(
            registrationId: id, email: email, name: "Ada", sealedPassword: FakeVault.sealed(password, .registrationPassword, context, at: clock.now),
            sealedCode: code.map { FakeVault.sealed($0, .code, context, at: clock.now) },
            replyKey: context.replyKey, avatar: .inline("SlBFRw=="), isMapLocationEnabled: true))
    }

    /// Starts `request` and returns the command it published.
    func start(_ request: Event) throws -> StoreAvatar {
        let events = try coordinator.handle(request)
        guard case .storeAvatar(let command) = events.first, events.count == 1 else { throw Unexpected(events) }
        return command
    }

    func failure(_ events: [Event]) -> ReasonCode? {
        guard case .registrationFailed(let failed) = events.first, events.count == 1 else { return nil }
        return failed.reason
    }

    @Test func aRequestCreatesAPendingAccountAndAsksForTheAvatar() throws {
        let command = try start(request())
        #expect(command.registrationId == "r-1" && command.avatar == .inline("SlBFRw=="))
        let account = try #require(try accounts.account(email: "ada@example.com"))
        #expect(account.status == .pending && account.passwordHash == "hash:correct horse battery" && account.createdAt == clock.now)
        #expect(account.verifiedAt == clock.now, "the register code proved the mailbox")
        let saga = try #require(try accounts.saga("r-1"))
        #expect(saga.stage == .awaitingAvatar && saga.imageId == command.imageId && saga.uid == account.uid)
    }

    @Test func theAvatarAndTheProfileCompleteTheRegistration() throws {
        let command = try start(request())
        let uid = try #require(try accounts.saga("r-1")).uid
        let profile = Profile(name: "Ada", email: "ada@example.com", profileImage: "memory://i.jpg", isMapLocationEnabled: true)
        #expect(try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "memory://i.jpg")))
            == [.writeProfile(WriteProfile(registrationId: "r-1", uid: uid, profile: profile, step: "awaiting_profile", revision: 2))])
        #expect(try accounts.saga("r-1")?.stage == .awaitingProfile)
        let sealed = try #require(FakeVault().seal(RegistrationResult(requestId: "r-1", uid: uid, profile: profile).sealedJSON, to: "key:ada"),
                                  "the result sealed to the request's reply key")
        #expect(try coordinator.handle(.profileWritten(ProfileWritten(registrationId: "r-1", uid: uid)))
            == [.registrationCompleted(RegistrationCompleted(registrationId: "r-1", sealedResult: sealed))])
        #expect(try accounts.account(uid: uid)?.status == .active)
        #expect(try accounts.saga("r-1")?.stage == .completed)
    }

    /// Attack 1 of issue 22: registering an address without its mailbox. Without the register code mailed there, or
    /// with a wrong one, the registration fails with its reason and creates nothing; the code counts once.
    @Test func aRegistrationWithoutTheRegisterCodeCreatesNothing() throws {
        #expect(failure(try coordinator.handle(request("r-1", code: nil))) == .codeRequired)
        #expect(failure(try coordinator.handle(request("r-2", code: "654321"))) == .invalidCredentials)
        #expect(try accounts.accounts().isEmpty && refusals() == ["r-2"], "only the refusal past the seals is recorded")
        _ = try start(request("r-3"))
        #expect(try start(request("r-3")).registrationId == "r-3", "a redelivery presents the code again")
        #expect(failure(try coordinator.handle(request("r-4", email: "ada@example.com"))) == .invalidCredentials, "used by r-3")
        #expect(try accounts.accounts().count == 1)
    }

    @Test func invalidRequestsFailAndCreateNothing() throws {
        #expect(failure(try coordinator.handle(request("../x"))) == .registrationIdInvalid)
        #expect(failure(try coordinator.handle(request("r-2", email: "not an email"))) == .emailInvalid)
        #expect(failure(try coordinator.handle(request("r-3", password: "short"))) == .passwordTooShort)
        let unsealable = Event.registrationRequested(RegistrationRequested(registrationId: "r-4", email: "a@example.com", name: "A",
                                                                           sealedPassword: "garbage", sealedCode: "garbage", replyKey: "key:a", avatar: nil,
                                                                           isMapLocationEnabled: false))
        #expect(failure(try coordinator.handle(unsealable)) == .passwordUnsealable)
        #expect(try accounts.accounts().isEmpty)
        #expect(try refusals() == ["r-3"], "what the message's bytes alone refuse is not kept; a refusal past the seals is")
    }

    /// Issue 23: a registration is answered once. A refusal is recorded, so the request redelivered after the wall
    /// clock stepped back (its seals now from the future) or published again with fresh seals and the right code is
    /// answered with the first refusal, verbatim, and creates nothing; the code stays unused for another registration.
    @Test func aRefusalIsTheRequestsOneOutcomeWhateverHappensAfter() throws {
        let wrong = request("r-1", code: "654321")
        let refused = try coordinator.handle(wrong)
        #expect(failure(refused) == .invalidCredentials)
        clock.step(by: -150)
        #expect(try coordinator.handle(wrong) == refused, "redelivered in a clock step back")
        clock.step(by: 600)
        #expect(try coordinator.handle(wrong) == refused, "redelivered past the seal window")
        #expect(try coordinator.handle(request("r-1")) == refused, "published again with the right code")
        #expect(try accounts.accounts().isEmpty && refusals() == ["r-1"])
        #expect(try start(request("r-2")).registrationId == "r-2", "the code was not spent by the refusal")
    }

    /// The ids of the registrations refused: failed sagas that created nothing.
    func refusals() throws -> [String] {
        try accounts.sagas(in: Set(SagaStage.allCases), updatedBefore: .distantFuture)
            .filter { $0.stage == .failed && $0.uid.isEmpty }.map(\.registrationId).sorted()
    }

    @Test func anEmailTakenInAnyLetterCaseFailsAndIsRecorded() throws {
        _ = try start(request())
        mailbox.mail("654321", to: "ada@example.com")
        #expect(failure(try coordinator.handle(request("r-2", email: "ADA@example.COM", code: "654321"))) == .emailTaken)
        #expect(try accounts.accounts().count == 1)
        let refusal = try #require(try accounts.saga("r-2"))
        #expect(refusal.stage == .failed && refusal.uid.isEmpty && refusal.name.isEmpty && refusal.email == "ada@example.com",
                "kept as a refusal, forgotten after the retention")
        #expect(failure(try coordinator.handle(request("r-2", email: "ADA@example.COM", code: "654321"))) == .emailTaken,
                "a redelivery is answered again")
    }

    @Test func aRejectedAvatarFailsAndDeletesThePendingAccount() throws {
        let command = try start(request())
        let rejected = Event.avatarRejected(AvatarRejected(registrationId: "r-1", imageId: command.imageId, reason: .imageCorrupt, message: "m"))
        #expect(try coordinator.handle(rejected) == [.registrationFailed(RegistrationFailed(registrationId: "r-1", reason: .imageCorrupt, message: "m"))])
        #expect(try accounts.accounts().isEmpty)
    }

    @Test func aRejectedProfileDeletesTheAvatarThenTheAccount() throws {
        let command = try start(request())
        let uid = try #require(try accounts.saga("r-1")).uid
        _ = try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "memory://i.jpg")))
        let rejected = Event.profileRejected(ProfileRejected(registrationId: "r-1", uid: uid, reason: .profileStoreRejected, message: "m"))
        #expect(try coordinator.handle(rejected) == [.deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: command.imageId, step: "compensating", revision: 3))])
        #expect(try accounts.saga("r-1")?.stage == .compensating)
        #expect(try accounts.account(uid: uid) != nil, "the account goes last")
        #expect(try coordinator.handle(.avatarDeleted(AvatarDeleted(registrationId: "r-1", imageId: command.imageId)))
            == [.registrationFailed(RegistrationFailed(registrationId: "r-1", reason: .profileStoreRejected, message: "m"))])
        #expect(try accounts.accounts().isEmpty)
    }

    @Test func redeliveriesRepublishAndCreateNothingTwice() throws {
        let command = try start(request())
        #expect(try start(request()) == command)
        let uid = try #require(try accounts.saga("r-1")).uid
        let stored = Event.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "memory://i.jpg"))
        let asked = try coordinator.handle(stored)
        #expect(try coordinator.handle(stored) == asked)
        let completed = try coordinator.handle(.profileWritten(ProfileWritten(registrationId: "r-1", uid: uid)))
        #expect(try coordinator.handle(request()) == completed)
        #expect(try coordinator.handle(stored) == completed)
        #expect(try accounts.accounts().count == 1)
        #expect(try accounts.saga("r-1")?.version == 3)
    }

    @Test func aSagaPastItsDeadlineIsUndoneAndItsLateRepliesToo() throws {
        let command = try start(request())
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "not stuck yet")
        clock.advance(by: 121)
        let expired = try coordinator.expireSagas(stalledFor: .seconds(120))
        #expect(failure(Array(expired.prefix(1))) == .deadlineExceeded, "answered at the deadline")
        #expect(expired.dropFirst() == [.deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: command.imageId, step: "compensating", revision: 2))])
        #expect(try accounts.accounts().isEmpty)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "expired once")
        #expect(try coordinator.handle(request()) == expired, "a retry of the request is answered alike")
        let late = Event.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "memory://i.jpg"))
        #expect(try coordinator.handle(late).isEmpty, "the deadline's undo follows the command this late reply answers")
        #expect(try coordinator.handle(.avatarDeleted(AvatarDeleted(registrationId: "r-1", imageId: command.imageId))).isEmpty,
                "its one outcome was given at the deadline")
        #expect(try accounts.saga("r-1")?.stage == .failed)
        #expect(try coordinator.handle(request()) == Array(expired.prefix(1)), "a retry after is answered with that outcome")
    }

    /// The chaos run's orphaned avatars: a saga past its deadline whose stored avatar's reply is lost, and whose undo is
    /// lost too (the sweep moved the record, then its worker stopped before publishing, or the broker lost its log). The
    /// saga stays compensating and the sweep sends the undo again at the next deadline, until the image worker confirms
    /// it: no avatar is left behind a failed saga.
    @Test func anUndoLostAfterTheSweepIsSentAgainUntilTheAvatarIsDeleted() throws {
        let images = TemporaryObjectStore()
        let avatars = AvatarStep(images: images, imaging: FakeImaging(), sha256: { "sha-\($0.count)" })
        let command = try start(request())
        _ = try avatars.handle(.storeAvatar(command))
        #expect(try images.contains(AvatarStep.key(imageId: command.imageId)), "stored; its reply is lost")
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty)
        clock.advance(by: 121)
        let lost = try coordinator.expireSagas(stalledFor: .seconds(120))
        #expect(failure(Array(lost.prefix(1))) == .deadlineExceeded, "answered at the deadline; these events are never published")
        #expect(try accounts.accounts().isEmpty)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "the undo's deadline counts from its move")
        clock.advance(by: 119)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty)
        clock.advance(by: 1)
        let again = try coordinator.expireSagas(stalledFor: .seconds(120))
        guard case .deleteAvatar(let undo) = again.last, again.count == 2 else { throw Unexpected(again) }
        #expect(again.first == lost.first, "the answer lost with the undo is sent again before it")
        let deleted = try avatars.handle(.deleteAvatar(undo))
        #expect(try !images.contains(AvatarStep.key(imageId: command.imageId)))
        #expect(try coordinator.handle(deleted[0]).isEmpty, "answered already")
        #expect(try accounts.saga("r-1")?.stage == .failed)
        clock.advance(by: 121)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "a failed saga has nothing left to undo")
    }

    /// Issue 23 point 4: the deadline counts time without progress on the monotonic clock. A wall-clock step of ±10
    /// minutes fails nothing; a reply restarts the count.
    @Test func aWallClockStepFailsNoSagaAndAReplyRestartsTheCount() throws {
        let command = try start(request())
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty)
        for step in [600.0, -600, 150, -150] {
            clock.step(by: step)
            #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "a step of \(step) s")
        }
        clock.advance(by: 100)
        _ = try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "memory://i.jpg")))
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty)
        clock.advance(by: 100)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "100 s since the reply")
        clock.advance(by: 21)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).first?.kind == .writeProfile, "asked again 120 s after the reply")
        clock.advance(by: 119)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "a second deadline from the command sent again")
        clock.advance(by: 1)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).first?.kind == .deleteProfile, "undone 240 s after the reply")
        #expect(try accounts.saga("r-1")?.failure?.reason == .deadlineExceeded)
    }

    /// Issue 23 point 6: the time the sweep is told it cannot see (its worker does not hear the broker the replies come
    /// through) counts against no saga, however long, whether it looks meanwhile or not; the rest counts.
    @Test func timeTheSweepCannotSeeCountsNothing() throws {
        _ = try start(request())
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty)
        clock.advance(by: 100)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty)
        coordinator.progress.canSee(false)
        for _ in 0..<60 {
            clock.advance(by: 5)
            #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "the time it could not see counts nothing")
        }
        clock.advance(by: 10)
        coordinator.progress.canSee(true)
        clock.advance(by: 19)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "100 + 19 s counted, not the 10 s blind before")
        clock.advance(by: 1)
        #expect(failure(Array(try coordinator.expireSagas(stalledFor: .seconds(120)).prefix(1))) == .deadlineExceeded)
    }

    /// Issue 23 point 6: a profile command lost (with a local broker's memory, say) costs its saga one deadline, not its
    /// account: at the deadline the same command is published again, and its reply completes the registration.
    @Test func aSagaStalledForItsProfileAsksOnceMoreAndCompletes() throws {
        let command = try start(request())
        let asked = try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "memory://i.jpg")))
        guard case .writeProfile(let write) = asked.first, asked.count == 1 else { throw Unexpected(asked) }
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty)
        clock.advance(by: 121)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)) == asked, "the same command again")
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty, "sent again once")
        #expect(try accounts.saga("r-1")?.stage == .awaitingProfile, "nothing moved")
        let completed = try coordinator.handle(.profileWritten(ProfileWritten(registrationId: "r-1", uid: write.uid)))
        guard case .registrationCompleted = completed.first else { throw Unexpected(completed) }
        #expect(try accounts.account(uid: write.uid)?.status == .active)
    }

    /// Issue 23 point 6: heartbeats of the waiting image worker, each naming one saga, keep every saga waiting for its
    /// avatar alive through a 10-minute outage (those queued behind the named one too), not one waiting for its
    /// profile; the deadline then counts from the last of them, and a stored avatar moves the saga on.
    @Test func heartbeatsOfAWaitingStepKeepEverySagaAtThatStepAlive() throws {
        let command = try start(request())
        mailbox.mail("123456", to: "bob@example.com")
        mailbox.mail("123456", to: "cy@example.com")
        _ = try start(request("r-2", email: "bob@example.com"))
        let third = try start(request("r-3", email: "cy@example.com"))
        _ = try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-3", imageId: third.imageId, url: "memory://3.jpg")))
        let beat = Event.avatarWaiting(AvatarWaiting(registrationId: "r-1", imageId: command.imageId))
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty)
        var undone: Set<String> = []
        for _ in 0..<10 {
            clock.advance(by: 60)
            #expect(try coordinator.handle(beat).isEmpty, "a heartbeat publishes nothing")
            undone.formUnion(try coordinator.expireSagas(stalledFor: .seconds(120)).map(\.registrationId))
        }
        #expect(undone == ["r-3"], "only the saga waiting for its profile is undone")
        #expect(failure(try coordinator.handle(.avatarDeleted(AvatarDeleted(registrationId: "r-3", imageId: third.imageId)))) == .deadlineExceeded,
                "its undo (sent again while unanswered) confirmed")
        clock.advance(by: 119)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).isEmpty)
        let asked = try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "memory://i.jpg")))
        guard case .writeProfile = asked.first else { throw Unexpected(asked) }
        clock.advance(by: 1)
        #expect(try coordinator.expireSagas(stalledFor: .seconds(120)).map(\.registrationId).contains("r-2"))
        #expect(throws: UntrustedEvent.self) {
            try coordinator.handle(.avatarWaiting(AvatarWaiting(registrationId: "r-2", imageId: "victim-image")))
        }
    }

    /// A sweep that could not look (its store down for 10 minutes, the process frozen) counts at most 30 s of that
    /// time: the saga's reply may be waiting to be read. Time it watches, a look every 5 s, counts in full.
    @Test func timeTheSweepCouldNotLookCountsAtMostThirtySeconds() throws {
        var sweeper = coordinator
        sweeper.progress = ProgressWatch(uptime: clock.uptime)
        _ = try start(request())
        #expect(try sweeper.expireSagas(stalledFor: .seconds(120)).isEmpty)
        clock.advance(by: 600)
        #expect(try sweeper.expireSagas(stalledFor: .seconds(120)).isEmpty, "30 s counted of the 600")
        for _ in 0..<17 {
            clock.advance(by: 5)
            #expect(try sweeper.expireSagas(stalledFor: .seconds(120)).isEmpty)
        }
        clock.advance(by: 5)
        #expect(try sweeper.expireSagas(stalledFor: .seconds(120)).map(\.kind) == [.registrationFailed, .deleteAvatar])
    }

    /// Attack 4: forged replies for a saga that does not exist undo nothing (no `DeleteAvatar` or
    /// `DeleteProfile` for the ids they name) and are refused as `unknown_saga`.
    @Test func repliesForAnUnknownSagaAreRefusedAndDeleteNothing() throws {
        let replies: [Event] = [
            .avatarStored(AvatarStored(registrationId: "nope-2", imageId: "victim-image", url: "u")),
            .profileWritten(ProfileWritten(registrationId: "nope-1", uid: "victim")),
            .avatarRejected(AvatarRejected(registrationId: "nope-3", imageId: "victim-image", reason: .imageCorrupt, message: "m")),
            .profileRejected(ProfileRejected(registrationId: "nope-4", uid: "victim", reason: .profileInvalid, message: "m")),
            .avatarDeleted(AvatarDeleted(registrationId: "nope-5", imageId: "victim-image")),
            .profileDeleted(ProfileDeleted(registrationId: "nope-6", uid: "victim")),
        ]
        for reply in replies {
            #expect(throws: UntrustedEvent.self) { try coordinator.handle(reply) }
            do { _ = try coordinator.handle(reply) } catch let error as UntrustedEvent { #expect(error.reason == .unknownSaga) }
        }
        #expect(try accounts.sagas(in: Set(SagaStage.allCases), updatedBefore: .distantFuture).isEmpty)
    }

    /// A reply naming another uid or image id than its saga's record moves nothing and undoes nothing;
    /// a late reply for a failed saga undoes only the saga's own avatar and profile.
    @Test func repliesWithOtherIdsThanTheSagasAreRefused() throws {
        let command = try start(request())
        let saga = try #require(try accounts.saga("r-1"))
        let forged: [Event] = [
            .avatarStored(AvatarStored(registrationId: "r-1", imageId: "victim-image", url: "u")),
            .avatarRejected(AvatarRejected(registrationId: "r-1", imageId: "victim-image", reason: .imageCorrupt, message: "m")),
            .profileWritten(ProfileWritten(registrationId: "r-1", uid: "victim")),
        ]
        for reply in forged {
            do {
                _ = try coordinator.handle(reply)
                Issue.record("\(reply.type) with another id was accepted")
            } catch let error as UntrustedEvent {
                #expect(error.reason == .replyMismatch)
            }
        }
        #expect(try accounts.saga("r-1") == saga, "nothing moved")
        #expect(try accounts.account(uid: saga.uid)?.status == .pending)

        _ = try coordinator.expireSagas(stalledFor: .seconds(120))
        clock.advance(by: 121)
        _ = try coordinator.expireSagas(stalledFor: .seconds(120))
        #expect(throws: UntrustedEvent.self) {
            try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: "victim-image", url: "u")))
        }
        #expect(throws: UntrustedEvent.self) { try coordinator.handle(.profileWritten(ProfileWritten(registrationId: "r-1", uid: "victim"))) }
        #expect(try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "u"))).isEmpty,
                "the deadline's undo follows it")
        _ = try coordinator.handle(.avatarDeleted(AvatarDeleted(registrationId: "r-1", imageId: command.imageId)))
        #expect(try coordinator.handle(.profileWritten(ProfileWritten(registrationId: "r-1", uid: saga.uid)))
            == [.deleteProfile(DeleteProfile(registrationId: "r-1", uid: saga.uid, step: "failed", revision: 3))])
        #expect(try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "u")))
            == [.deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: command.imageId, step: "failed", revision: 3))])
    }

    @Test func aTransientStoreFailureIsThrownToBeRetried() throws {
        accounts.writes.arm(StoreError(.transient, "busy"), times: 1)
        #expect(throws: StoreError.self) { try coordinator.handle(request()) }
        #expect(try accounts.accounts().isEmpty)
        _ = try start(request())
        #expect(try accounts.accounts().count == 1)
    }
}

struct Unexpected: Error, CustomStringConvertible {
    var events: [Event]
    init(_ events: [Event]) { self.events = events }
    var description: String { "unexpected events: \(events)" }
}
