import Domain
import Foundation
@testable import Registration
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct SagaTransitionTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Stands for a completed saga's result sealed to its requester.
    static func sealed(_ saga: SagaRecord) -> String { "sealed result of \(saga.uid)" }

    /// A saga at `stage`, with the version a registration reaches there.
    func saga(_ stage: SagaStage, imageURL: String? = nil) -> SagaRecord {
        let versions: [SagaStage: Int] = [.awaitingAvatar: 1, .awaitingProfile: 2, .compensating: 3, .completed: 3, .failed: 3]
        return SagaRecord(registrationId: "r1", uid: "u1", email: "a@example.com", name: "Ada", isMapLocationEnabled: true,
                          imageId: "i1", imageURL: imageURL, stage: stage, version: versions[stage]!, startedAt: now, updatedAt: now)
    }

    /// Issue 23 point 6: a waiting worker's heartbeat moves no saga and publishes nothing (the coordinator counts it as
    /// progress of the sagas at its step); one naming other ids than the saga's is a mismatch.
    @Test func aHeartbeatMovesNoSaga() {
        let avatar = Event.avatarWaiting(AvatarWaiting(registrationId: "r1", imageId: "i1"))
        let profile = Event.profileWaiting(ProfileWaiting(registrationId: "r1", uid: "u1"))
        for event in [avatar, profile] {
            for stage in SagaStage.allCases {
                let transition = SagaTransition.on(event, saga: saga(stage), at: now, sealing: Self.sealed)
                #expect(transition.record == nil && transition.events.isEmpty, "\(event.type) in \(stage)")
            }
        }
        #expect(SagaTransition.mismatch(of: .avatarWaiting(AvatarWaiting(registrationId: "r1", imageId: "other")), with: saga(.awaitingAvatar)) != nil)
        #expect(SagaTransition.mismatch(of: .profileWaiting(ProfileWaiting(registrationId: "r1", uid: "other")), with: saga(.awaitingProfile)) != nil)
    }

    @Test func storedAvatarAsksForTheProfile() {
        let transition = SagaTransition.on(.avatarStored(AvatarStored(registrationId: "r1", imageId: "i1", url: "file:///i1.jpg")),
                                           saga: saga(.awaitingAvatar), at: now, sealing: Self.sealed)
        #expect(transition.record?.stage == .awaitingProfile)
        #expect(transition.record?.version == 2)
        #expect(transition.events == [.writeProfile(WriteProfile(registrationId: "r1", uid: "u1", profile: Profile(
            name: "Ada", email: "a@example.com", profileImage: "file:///i1.jpg", isMapLocationEnabled: true), step: "awaiting_profile", revision: 2))])
    }

    @Test func writtenProfileCompletesAndActivates() {
        let transition = SagaTransition.on(.profileWritten(ProfileWritten(registrationId: "r1", uid: "u1")),
                                           saga: saga(.awaitingProfile, imageURL: "u"), at: now, sealing: Self.sealed)
        #expect(transition.record?.stage == .completed)
        #expect(transition.change == .activate(uid: "u1"))
        #expect(transition.record?.sealedResult == "sealed result of u1")
        #expect(transition.events == [.registrationCompleted(RegistrationCompleted(registrationId: "r1", sealedResult: "sealed result of u1"))])
    }

    @Test func rejectedAvatarFailsAndDeletesTheAccount() {
        let transition = SagaTransition.on(.avatarRejected(AvatarRejected(registrationId: "r1", imageId: "i1", reason: .imageCorrupt, message: "m")),
                                           saga: saga(.awaitingAvatar), at: now, sealing: Self.sealed)
        #expect(transition.record?.stage == .failed)
        #expect(transition.change == .delete(uid: "u1"))
        #expect(transition.events == [.registrationFailed(RegistrationFailed(registrationId: "r1", reason: .imageCorrupt, message: "m"))])
    }

    @Test func rejectedProfileDeletesTheAvatarBeforeTheAccount() {
        let rejected = SagaTransition.on(.profileRejected(ProfileRejected(registrationId: "r1", uid: "u1", reason: .profileStoreRejected, message: "m")),
                                         saga: saga(.awaitingProfile, imageURL: "u"), at: now, sealing: Self.sealed)
        #expect(rejected.record?.stage == .compensating)
        #expect(rejected.change == nil)
        #expect(rejected.events == [.deleteAvatar(DeleteAvatar(registrationId: "r1", imageId: "i1", step: "compensating", revision: 3))])

        let deleted = SagaTransition.on(.avatarDeleted(AvatarDeleted(registrationId: "r1", imageId: "i1")), saga: rejected.record!, at: now, sealing: Self.sealed)
        #expect(deleted.record?.stage == .failed)
        #expect(deleted.change == .delete(uid: "u1"))
        #expect(deleted.events == [.registrationFailed(RegistrationFailed(registrationId: "r1", reason: .profileStoreRejected, message: "m"))])
    }

    /// Only replies naming the saga's own image id or uid are the saga's.
    @Test func aReplyNamingOtherIdsIsAMismatch() {
        let record = saga(.awaitingAvatar)
        #expect(SagaTransition.mismatch(of: .avatarStored(AvatarStored(registrationId: "r1", imageId: "i1", url: "u")), with: record) == nil)
        #expect(SagaTransition.mismatch(of: .profileDeleted(ProfileDeleted(registrationId: "r1", uid: "u1")), with: record) == nil)
        #expect(SagaTransition.mismatch(of: .avatarDeleted(AvatarDeleted(registrationId: "r1", imageId: "victim")), with: record) != nil)
        #expect(SagaTransition.mismatch(of: .profileRejected(ProfileRejected(registrationId: "r1", uid: "victim", reason: .profileInvalid,
                                                                             message: "m")), with: record) != nil)
    }

    /// Every command carries the stage and version of the record that sent it, so an undo is always newer than the
    /// forward command it undoes.
    @Test func lateForwardRepliesAfterFailureAreUndone() {
        var failed = saga(.failed)
        failed.failure = Failure(.deadlineExceeded, "late")
        let avatar = SagaTransition.on(.avatarStored(AvatarStored(registrationId: "r1", imageId: "i1", url: "u")), saga: failed, at: now, sealing: Self.sealed)
        #expect(avatar.record == nil)
        #expect(avatar.events == [.deleteAvatar(DeleteAvatar(registrationId: "r1", imageId: "i1", step: "failed", revision: 3))])
        let profile = SagaTransition.on(.profileWritten(ProfileWritten(registrationId: "r1", uid: "u1")), saga: failed, at: now, sealing: Self.sealed)
        #expect(profile.record == nil)
        #expect(profile.events == [.deleteProfile(DeleteProfile(registrationId: "r1", uid: "u1", step: "failed", revision: 3))])
    }

    @Test func duplicateRepliesRepublishTheCurrentStage() {
        let completed = saga(.completed, imageURL: "u")
        let transition = SagaTransition.on(.avatarStored(AvatarStored(registrationId: "r1", imageId: "i1", url: "u")), saga: completed, at: now, sealing: Self.sealed)
        #expect(transition.record == nil)
        #expect(transition.events == SagaTransition.events(of: completed))
    }

    @Test func expiryUndoesWhatExists() {
        let waitingForAvatar = SagaTransition.expire(saga(.awaitingAvatar), at: now)
        #expect(waitingForAvatar?.record?.stage == .compensating, "failed only once the avatar is confirmed deleted")
        #expect(waitingForAvatar?.change == .delete(uid: "u1"))
        #expect(waitingForAvatar?.events == [Self.deadlineFailure,
                                             .deleteAvatar(DeleteAvatar(registrationId: "r1", imageId: "i1", step: "compensating", revision: 2))],
                "answered at once, before its undo")

        let waitingForProfile = SagaTransition.expire(saga(.awaitingProfile, imageURL: "u"), at: now)
        #expect(waitingForProfile?.record?.stage == .compensating)
        #expect(waitingForProfile?.events == [.deleteProfile(DeleteProfile(registrationId: "r1", uid: "u1", step: "compensating", revision: 3)),
                                              .deleteAvatar(DeleteAvatar(registrationId: "r1", imageId: "i1", step: "compensating", revision: 3))])
        #expect(SagaTransition.expire(saga(.completed), at: now) == nil)
        #expect(SagaTransition.expire(saga(.failed), at: now) == nil)
    }

    /// The failure a saga past its deadline is answered with.
    static let deadlineFailure = Event.registrationFailed(RegistrationFailed(
        registrationId: "r1", reason: .deadlineExceeded, message: "The registration did not finish in time and was undone."))

    /// A saga answered at its deadline while it awaited its avatar gives its outcome once: its late image replies
    /// publish nothing (the deadline's undo follows their command), and the confirmed undo fails it silently; a replay
    /// of its request, before or after, is answered the same.
    @Test func aSagaAnsweredAtItsDeadlineFailsWithoutAnsweringAgain() throws {
        let compensating = try #require(SagaTransition.expire(saga(.awaitingAvatar), at: now)?.record)
        #expect(SagaTransition.outcome(of: compensating) == Self.deadlineFailure)
        #expect(SagaTransition.events(of: compensating)
            == [Self.deadlineFailure, .deleteAvatar(DeleteAvatar(registrationId: "r1", imageId: "i1", step: "compensating", revision: 2))])
        for late in [Event.avatarStored(AvatarStored(registrationId: "r1", imageId: "i1", url: "u")),
                     .avatarRejected(AvatarRejected(registrationId: "r1", imageId: "i1", reason: .imageCorrupt, message: "m"))] {
            let transition = SagaTransition.on(late, saga: compensating, at: now, sealing: Self.sealed)
            #expect(transition.record == nil && transition.events.isEmpty, "\(late.type)")
        }
        let deleted = SagaTransition.on(.avatarDeleted(AvatarDeleted(registrationId: "r1", imageId: "i1")), saga: compensating, at: now,
                                        sealing: Self.sealed)
        let failed = try #require(deleted.record)
        #expect(failed.stage == .failed && deleted.change == .delete(uid: "u1"))
        #expect(deleted.events.isEmpty, "answered at the deadline")
        #expect(SagaTransition.events(of: failed) == [Self.deadlineFailure])
        // A saga compensating for its profile's failure is answered only when its avatar is deleted.
        let rejected = SagaTransition.on(.profileRejected(ProfileRejected(registrationId: "r1", uid: "u1", reason: .profileInvalid, message: "m")),
                                         saga: saga(.awaitingProfile, imageURL: "u"), at: now, sealing: Self.sealed)
        #expect(SagaTransition.outcome(of: try #require(rejected.record)) == nil)
    }

    /// A compensation unanswered for the deadline is sent again (the profile's too once the avatar was stored), newer;
    /// with the answer given at the deadline, which may have been lost with it.
    @Test func expiryOfACompensationSendsItAgain() throws {
        let answered = try #require(SagaTransition.expire(saga(.awaitingAvatar), at: now)?.record)
        let afterAvatar = SagaTransition.expire(answered, at: now)
        #expect(afterAvatar?.record?.stage == .compensating && afterAvatar?.change == nil)
        #expect(afterAvatar?.events == [Self.deadlineFailure,
                                        .deleteAvatar(DeleteAvatar(registrationId: "r1", imageId: "i1", step: "compensating", revision: 3))])
        let afterProfile = SagaTransition.expire(saga(.compensating, imageURL: "u"), at: now)
        #expect(afterProfile?.events == [.deleteProfile(DeleteProfile(registrationId: "r1", uid: "u1", step: "compensating", revision: 4)),
                                         .deleteAvatar(DeleteAvatar(registrationId: "r1", imageId: "i1", step: "compensating", revision: 4))])
    }
}
