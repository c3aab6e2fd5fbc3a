import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// The account worker's registration saga on in-memory stores: what each request and reply publishes,
/// what it leaves in the account store, and how failures, deadlines and redeliveries are answered.
@Suite(.tags(.unit)) struct RegistrationCoordinatorTests {
    let accounts = InMemoryAccountStore()
    let clock = ManualClock()
    let ledger = InMemorySealLedger()
    let mailbox = FakeMailbox()
    var coordinator: RegistrationCoordinator {
        RegistrationCoordinator(accounts: accounts, vault: FakeVault(),
                                seals: SealOpener(vault: FakeVault(), ledger: ledger, clock: clock.closure), mailbox: mailbox, clock: clock.closure)
    }

    init() {
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
        let sealed = try #require(FakeVault().seal(RegistrationResult(registrationId: "r-1", uid: uid, profile: profile).encoded, to: "key:ada"),
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
        #expect(try accounts.accounts().isEmpty && accounts.sagas(in: Set(SagaStage.allCases), updatedBefore: .distantFuture).isEmpty)
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
        #expect(try accounts.sagas(in: Set(SagaStage.allCases), updatedBefore: .distantFuture).isEmpty)
    }

    @Test func anEmailTakenInAnyLetterCaseFailsAndIsRecorded() throws {
        _ = try start(request())
        mailbox.mail("654321", to: "ada@example.com")
        #expect(failure(try coordinator.handle(request("r-2", email: "ADA@example.COM", code: "654321"))) == .emailTaken)
        #expect(try accounts.accounts().count == 1)
        #expect(try accounts.saga("r-2")?.stage == .failed)
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
        #expect(try coordinator.expireSagas(notUpdatedSince: clock.now).isEmpty, "not stuck yet")
        clock.advance(by: 121)
        let expired = try coordinator.expireSagas(notUpdatedSince: clock.now.addingTimeInterval(-120))
        #expect(expired.first == .deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: command.imageId, step: "failed", revision: 2)))
        #expect(failure(Array(expired.dropFirst())) == .deadlineExceeded)
        #expect(try accounts.accounts().isEmpty)
        #expect(try coordinator.expireSagas(notUpdatedSince: clock.now).isEmpty, "expired once")
        let late = Event.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "memory://i.jpg"))
        #expect(try coordinator.handle(late) == [.deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: command.imageId, step: "failed", revision: 2))])
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

        clock.advance(by: 121)
        _ = try coordinator.expireSagas(notUpdatedSince: clock.now.addingTimeInterval(-120))
        #expect(throws: UntrustedEvent.self) {
            try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: "victim-image", url: "u")))
        }
        #expect(throws: UntrustedEvent.self) { try coordinator.handle(.profileWritten(ProfileWritten(registrationId: "r-1", uid: "victim"))) }
        #expect(try coordinator.handle(.profileWritten(ProfileWritten(registrationId: "r-1", uid: saga.uid)))
            == [.deleteProfile(DeleteProfile(registrationId: "r-1", uid: saga.uid, step: "failed", revision: 2))])
        #expect(try coordinator.handle(.avatarStored(AvatarStored(registrationId: "r-1", imageId: command.imageId, url: "u")))
            == [.deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: command.imageId, step: "failed", revision: 2))])
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
