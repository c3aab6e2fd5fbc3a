import AccountChanges
import Domain
import Foundation
@testable import TestSupport
import Testing

/// The account deletion saga: avatar, then profile, then the account; a reply it is past, or that names another
/// deletion's ids, moves nothing; its deadline sends the same step again, never undoes one.
@Suite(.tags(.unit)) struct DeletionSagaTests {
    let now = Date(timeIntervalSince1970: 1_000_000)
    var deletion: DeletionRecord {
        DeletionRecord(requestId: "d", uid: "u", email: "gone@example.com", imageId: "i", stage: .erasingAvatar, revision: 7, updatedAt: now)
    }

    @Test func theStepsGoAvatarThenProfileThenTheAccount() throws {
        #expect(DeletionSaga.events(of: deletion) == [.eraseAvatar(EraseAvatar(requestId: "d", uid: "u", imageId: "i", step: "erasing_avatar", revision: 7))])
        let profile = try #require(DeletionSaga.on(.avatarErased(AvatarErased(requestId: "d", uid: "u", imageId: "i")), deletion: deletion, at: now).record)
        #expect(profile.stage == .erasingProfile && profile.email == "gone@example.com")
        let completed = try #require(DeletionSaga.on(.profileErased(ProfileErased(requestId: "d", uid: "u")), deletion: profile, at: now).record)
        #expect(completed.stage == .completed && completed.email.isEmpty, "a completed deletion keeps no address")
        #expect(DeletionSaga.events(of: completed) == [.accountDeleted(AccountDeleted(requestId: "d"))])
    }

    @Test func anAccountWithoutAnAvatarStartsWithItsProfile() {
        #expect(DeletionSaga.firstStage(imageId: nil) == .erasingProfile && DeletionSaga.firstStage(imageId: "i") == .erasingAvatar)
    }

    @Test func aReplyTheSagaIsPastMovesNothingAndItsStageIsAskedAgain() throws {
        var completed = deletion
        completed.stage = .completed
        let late = DeletionSaga.on(.avatarErased(AvatarErased(requestId: "d", uid: "u", imageId: "i")), deletion: completed, at: now)
        #expect(late.record == nil)
        #expect(late.events(after: completed) == [.accountDeleted(AccountDeleted(requestId: "d"))])
        // A profile's erasure before the avatar's is not taken: the avatar is asked for again.
        let early = DeletionSaga.on(.profileErased(ProfileErased(requestId: "d", uid: "u")), deletion: deletion, at: now)
        #expect(early.record == nil && early.events(after: deletion).map(\.kind) == [.eraseAvatar])
    }

    @Test func aReplyNamingAnotherAccountOrImageIsRefused() {
        #expect(DeletionSaga.mismatch(of: .avatarErased(AvatarErased(requestId: "d", uid: "other", imageId: "i")), with: deletion) != nil)
        #expect(DeletionSaga.mismatch(of: .avatarErased(AvatarErased(requestId: "d", uid: "u", imageId: "other")), with: deletion) != nil)
        #expect(DeletionSaga.mismatch(of: .profileErased(ProfileErased(requestId: "d", uid: "other")), with: deletion) != nil)
        #expect(DeletionSaga.mismatch(of: .avatarErased(AvatarErased(requestId: "d", uid: "u", imageId: "i")), with: deletion) == nil)
    }

    @Test func theDeadlineSendsTheSameStepAgainAndNeverUndoes() throws {
        let later = now.addingTimeInterval(300)
        let again = try #require(DeletionSaga.expire(deletion, at: later)?.record)
        #expect(again.stage == .erasingAvatar && again.updatedAt == later)
        #expect(DeletionSaga.events(of: again).map(\.kind) == [.eraseAvatar], "the same step again")
        var completed = deletion
        completed.stage = .completed
        #expect(DeletionSaga.expire(completed, at: later) == nil)
    }
}
