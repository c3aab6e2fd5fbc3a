import AccountChanges
import Domain
import Foundation
@testable import TestSupport
import Testing

/// The profile update saga: new avatar stored, profile switched, then the old avatar discarded; a failure before the
/// switch undoes what was done (the new avatar discarded, the profile set back), the deadline likewise; past the switch
/// only forward; a reply it is past, or naming another update's ids, moves nothing.
@Suite(.tags(.unit)) struct ProfileUpdateSagaTests {
    let now = Date(timeIntervalSince1970: 1_000_000)
    let previous = Profile(name: "Ada", email: "ada@example.com", profileImage: "file:///ProfileImages/old.jpg", isMapLocationEnabled: false)
    var update: ProfileUpdateRecord {
        ProfileUpdateRecord(requestId: "p", uid: "u", fields: ProfileFields(name: "Ada L", isMapLocationEnabled: true), previous: previous,
                            newImageId: "new", oldImageId: "old", replyKey: "k", stage: .storingAvatar, revision: 5, updatedAt: now)
    }
    let seal: (ProfileUpdateRecord) -> String = { "sealed:" + $0.profile.name + "|" + $0.profile.profileImage }

    func on(_ reply: Event, _ update: ProfileUpdateRecord) throws -> ProfileUpdateRecord {
        try #require(ProfileUpdateSaga.on(reply, update: update, at: now, sealing: seal).record)
    }

    @Test func theNewAvatarIsStoredThenTheProfileSwitchedThenTheOldAvatarDiscarded() throws {
        let switching = try on(.newAvatarStored(NewAvatarStored(requestId: "p", uid: "u", imageId: "new", url: "file:///ProfileImages/new.jpg")), update)
        #expect(switching.stage == .updatingProfile && switching.fields.profileImage == "file:///ProfileImages/new.jpg")
        #expect(ProfileUpdateSaga.events(of: switching) == [.updateProfile(ProfileFieldsUpdate(
            requestId: "p", uid: "u", fields: ProfileFields(name: "Ada L", profileImage: "file:///ProfileImages/new.jpg", isMapLocationEnabled: true),
            step: "updating_profile", revision: 5))])
        let discarding = try on(.profileUpdateApplied(ProfileFieldsUpdate(requestId: "p", uid: "u", fields: switching.fields, step: "updating_profile",
                                                                          revision: 5)), switching)
        #expect(discarding.stage == .discardingOldAvatar && discarding.sealedProfile == "sealed:Ada L|file:///ProfileImages/new.jpg")
        #expect(ProfileUpdateSaga.events(of: discarding) == [.discardAvatar(DiscardAvatar(requestId: "p", uid: "u", imageId: "old",
                                                                                          step: "discarding_old_avatar", revision: 5))])
        let completed = try on(.avatarDiscarded(AvatarDiscarded(requestId: "p", uid: "u", imageId: "old")), discarding)
        #expect(completed.stage == .completed)
        #expect(ProfileUpdateSaga.events(of: completed) == [.profileUpdated(ProfileUpdated(requestId: "p", sealedProfile: discarding.sealedProfile!))])
    }

    @Test func anUpdateWithoutAnAvatarCompletesOnceTheProfileIsSet() throws {
        var fields = update
        fields.newImageId = nil
        fields.stage = .updatingProfile
        #expect(ProfileUpdateSaga.events(of: fields).map(\.kind) == [.updateProfile])
        let completed = try on(.profileUpdateApplied(ProfileFieldsUpdate(requestId: "p", uid: "u", fields: fields.fields, step: "updating_profile",
                                                                         revision: 5)), fields)
        #expect(completed.stage == .completed && completed.sealedProfile == "sealed:Ada L|file:///ProfileImages/old.jpg")
    }

    @Test func aRefusedAvatarFailsWithItsReasonAndStoresNothing() throws {
        let failed = try on(.newAvatarRejected(NewAvatarRejected(requestId: "p", uid: "u", imageId: "new", reason: .imageCorrupt, message: "bad")), update)
        #expect(failed.stage == .failed && failed.failure?.reason == .imageCorrupt)
        #expect(ProfileUpdateSaga.events(of: failed) == [.accountChangeFailed(RequestRefusal(requestId: "p", reason: .imageCorrupt, message: "bad"))])
    }

    @Test func aRefusedProfileDiscardsTheNewAvatarThenFails() throws {
        var switching = update
        switching.stage = .updatingProfile
        let discarding = try on(.profileUpdateRejected(ProfileUpdateRejected(requestId: "p", uid: "u", reason: .nameEmpty, message: "empty")), switching)
        #expect(discarding.stage == .discardingNewAvatar && discarding.failure?.reason == .nameEmpty)
        #expect(ProfileUpdateSaga.events(of: discarding).map(\.kind) == [.discardAvatar])
        #expect(ProfileUpdateSaga.events(of: discarding) == [.discardAvatar(DiscardAvatar(requestId: "p", uid: "u", imageId: "new",
                                                                                          step: "discarding_new_avatar", revision: 5))])
        // The old avatar's discard is not the new one's.
        #expect(ProfileUpdateSaga.on(.avatarDiscarded(AvatarDiscarded(requestId: "p", uid: "u", imageId: "old")), update: discarding, at: now,
                                     sealing: seal).record == nil)
        let failed = try on(.avatarDiscarded(AvatarDiscarded(requestId: "p", uid: "u", imageId: "new")), discarding)
        #expect(failed.stage == .failed && failed.failure?.reason == .nameEmpty && failed.sealedProfile == nil)
    }

    @Test func theDeadlineUndoesAnUpdateBeforeItsSwitchAndResendsAfter() throws {
        let later = now.addingTimeInterval(300)
        let storing = try #require(ProfileUpdateSaga.expire(update, at: later)?.record)
        #expect(storing.stage == .discardingNewAvatar && storing.failure?.reason == .deadlineExceeded)
        var switching = update
        switching.stage = .updatingProfile
        switching.fields.profileImage = "file:///ProfileImages/new.jpg"
        let restoring = try #require(ProfileUpdateSaga.expire(switching, at: later)?.record)
        #expect(restoring.stage == .restoringProfile)
        #expect(ProfileUpdateSaga.events(of: restoring) == [.updateProfile(ProfileFieldsUpdate(
            requestId: "p", uid: "u", fields: ProfileFields(name: "Ada", profileImage: "file:///ProfileImages/old.jpg", isMapLocationEnabled: false),
            step: "restoring_profile", revision: 5))], "exactly the fields it set, set back")
        // The forward command's late answer is not the restoration's (another revision).
        var restored = restoring
        restored.revision = 6
        #expect(ProfileUpdateSaga.on(.profileUpdateApplied(ProfileFieldsUpdate(requestId: "p", uid: "u", fields: switching.fields, step: "updating_profile",
                                                                               revision: 5)), update: restored, at: later, sealing: seal).record == nil)
        let back = try on(.profileUpdateApplied(ProfileFieldsUpdate(requestId: "p", uid: "u", fields: ProfileFields(), step: "restoring_profile",
                                                                    revision: 6)), restored)
        #expect(back.stage == .discardingNewAvatar && back.failure?.reason == .deadlineExceeded)
        for stage in [ProfileUpdateStage.discardingOldAvatar, .restoringProfile, .discardingNewAvatar] {
            var waiting = update
            waiting.stage = stage
            let again = try #require(ProfileUpdateSaga.expire(waiting, at: later)?.record)
            #expect(again.stage == stage && again.updatedAt == later, "\(stage) goes on: its step sent again")
        }
        for stage in [ProfileUpdateStage.completed, .failed] {
            var done = update
            done.stage = stage
            #expect(ProfileUpdateSaga.expire(done, at: later) == nil)
        }
    }

    @Test func aReplyNamingAnotherAccountOrImageIsRefused() {
        #expect(ProfileUpdateSaga.mismatch(of: .newAvatarStored(NewAvatarStored(requestId: "p", uid: "other", imageId: "new", url: "x")), with: update) != nil)
        #expect(ProfileUpdateSaga.mismatch(of: .newAvatarStored(NewAvatarStored(requestId: "p", uid: "u", imageId: "victim", url: "x")), with: update) != nil)
        #expect(ProfileUpdateSaga.mismatch(of: .avatarDiscarded(AvatarDiscarded(requestId: "p", uid: "u", imageId: "victim")), with: update) != nil)
        #expect(ProfileUpdateSaga.mismatch(of: .profileUpdateWaiting(ProfileUpdateWaiting(requestId: "p", uid: "other", step: "updating_profile")),
                                           with: update) != nil)
        #expect(ProfileUpdateSaga.mismatch(of: .newAvatarStored(NewAvatarStored(requestId: "p", uid: "u", imageId: "new", url: "x")), with: update) == nil)
        #expect(ProfileUpdateSaga.mismatch(of: .avatarDiscarded(AvatarDiscarded(requestId: "p", uid: "u", imageId: "old")), with: update) == nil)
    }

    @Test func aReplyTheUpdateIsPastMovesNothing() {
        var completed = update
        completed.stage = .completed
        completed.sealedProfile = "s"
        let late = ProfileUpdateSaga.on(.newAvatarStored(NewAvatarStored(requestId: "p", uid: "u", imageId: "new", url: "x")), update: completed,
                                        at: now, sealing: seal)
        #expect(late.record == nil && late.events(after: completed) == [.profileUpdated(ProfileUpdated(requestId: "p", sealedProfile: "s"))])
    }
}
