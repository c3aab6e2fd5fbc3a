import AccountChanges
@testable import DevTools
import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// The chaos report's checks of updates and deletions (`LifecycleChecks`): each passes on what a correct run leaves and
/// fails on each thing a broken saga or a wrong answer would leave.
@Suite(.tags(.unit)) struct LifecycleChecksTests {
    static let before = Profile(name: "Chaos 1", email: "user1@example.com", profileImage: "https://images.test/ProfileImages/old.jpg",
                                isMapLocationEnabled: false)
    static let update = ChaosWorkload.LifecycleAction.update(name: "Renamed 1", isMapLocationEnabled: true, corruptAvatar: false)

    static func item(_ action: ChaosWorkload.LifecycleAction, _ answers: [LifecycleChecks.Case.Answer]) -> LifecycleChecks.Case {
        LifecycleChecks.Case(registrationId: "chaos-1", email: "user1@example.com", action: action, via: "topics", answers: answers)
    }

    static func record(_ stage: ProfileUpdateStage) -> ProfileUpdateRecord {
        ProfileUpdateRecord(requestId: "update-chaos-1", uid: "u1",
                            fields: ProfileFields(name: "Renamed 1", profileImage: "https://images.test/ProfileImages/new.jpg", isMapLocationEnabled: true),
                            previous: before, newImageId: "new", oldImageId: "old", replyKey: "k", stage: stage, updatedAt: Date())
    }

    /// The account after a completed deletion: nothing left, its record finished without its address.
    static let deleted = LifecycleChecks.AccountState(
        account: nil, addressTaken: false, profile: nil, storedImages: [], codes: [], sessions: 0, updates: [],
        deletion: DeletionRecord(requestId: "delete-chaos-1", uid: "u1", email: "", imageId: "old", stage: .completed, updatedAt: Date()))

    static let untouched = LifecycleChecks.AccountState(
        account: Account(uid: "u1", email: "user1@example.com", passwordHash: "h", status: .active, registrationId: "chaos-1", createdAt: Date()),
        addressTaken: true, profile: before, storedImages: ["old"], codes: [], sessions: 1, updates: [], deletion: nil)

    @Test func aCompleteDeletionPassesAndEachRemainFails() {
        let done = Self.item(.delete, [.deleted(requestId: "delete-chaos-1")])
        #expect(LifecycleChecks.deletionRemains(done, Self.deleted).isEmpty)
        let remains: [(String, (inout LifecycleChecks.AccountState) -> Void)] = [
            ("account", { $0.account = Self.untouched.account }),
            ("address taken", { $0.addressTaken = true }),
            ("profile", { $0.profile = Self.before }),
            ("codes", { $0.codes = [.login] }),
            ("sessions", { $0.sessions = 1 }),
            ("avatar old", { $0.storedImages = ["old"] }),
            ("deletion at erasing_profile", { $0.deletion?.stage = .erasingProfile }),
            ("keeps the address", { $0.deletion?.email = "user1@example.com" }),
            ("no record", { $0.deletion = nil }),
        ]
        for (what, change) in remains {
            var state = Self.deleted
            change(&state)
            let found = LifecycleChecks.deletionRemains(done, state)
            #expect(found.count == 1 && found[0].contains(what), "\(what): \(found)")
        }
    }

    @Test func aRefusedDeletionMustLeaveTheAccountAsItWas() {
        let refused = Self.item(.delete, [.refused("invalid_credentials")])
        #expect(LifecycleChecks.deletionRemains(refused, Self.untouched).isEmpty)
        var deleting = Self.untouched
        deleting.account?.status = .deleting
        #expect(LifecycleChecks.deletionRemains(refused, deleting).first?.contains("account deleting") == true)
        var noAvatar = Self.untouched
        noAvatar.storedImages = []
        #expect(LifecycleChecks.deletionRemains(refused, noAvatar).first?.contains("avatar gone") == true)
        #expect(LifecycleChecks.unexpected([refused]).count == 1, "a deletion must be done")
    }

    @Test func anUpdateCompleteOrUndonePassesAndHalfWayFails() {
        var complete = Self.untouched
        complete.profile = Self.record(.completed).profile
        complete.storedImages = ["new"]
        complete.updates = [Self.record(.completed)]
        #expect(LifecycleChecks.updateRemains(Self.item(Self.update, [.updated]), complete).isEmpty)
        var undone = Self.untouched
        undone.updates = [Self.record(.failed)]
        #expect(LifecycleChecks.updateRemains(Self.item(Self.update, [.refused("deadline_exceeded")]), undone).isEmpty)

        let broken: [(String, LifecycleChecks.Case.Answer, (inout LifecycleChecks.AccountState) -> Void)] = [
            ("not the update's", .updated, { $0 = complete; $0.profile = Self.before }),
            ("new avatar is gone", .updated, { $0 = complete; $0.storedImages = [] }),
            ("old avatar is still stored", .updated, { $0 = complete; $0.storedImages = ["new", "old"] }),
            ("yet completed", .refused("deadline_exceeded"), { $0 = complete }),
            ("not as before", .refused("deadline_exceeded"), { $0 = undone; $0.profile?.name = "Renamed 1" }),
            ("new avatar is stored", .refused("deadline_exceeded"), { $0 = undone; $0.storedImages = ["old", "new"] }),
            ("yet not completed", .updated, { $0 = undone }),
            ("stuck at updating_profile", .refused("deadline_exceeded"), { $0 = undone; $0.updates = [Self.record(.updatingProfile)] }),
            ("no profile", .refused("image_corrupt"), { $0 = Self.untouched; $0.profile = nil }),
        ]
        for (what, answer, change) in broken {
            var state = Self.untouched
            change(&state)
            let found = LifecycleChecks.updateRemains(Self.item(Self.update, [answer]), state)
            #expect(found.first?.contains(what) == true, "\(what): \(found)")
        }
    }

    @Test func eachRequestOneAnswerTheOneItCalledFor() {
        let corrupt = ChaosWorkload.LifecycleAction.update(name: "n", isMapLocationEnabled: true, corruptAvatar: true)
        let fine = [Self.item(.delete, [.deleted(requestId: nil)]), Self.item(Self.update, [.updated]),
                    Self.item(corrupt, [.refused("image_corrupt")]), Self.item(Self.update, [.refused("deadline_exceeded")])]
        #expect(LifecycleChecks.unanswered(fine).isEmpty)
        #expect(LifecycleChecks.unexpected(fine).isEmpty)
        #expect(LifecycleChecks.unanswered([Self.item(.delete, [])]).count == 1)
        #expect(LifecycleChecks.unanswered([Self.item(Self.update, [.updated, .refused("deadline_exceeded")])]).count == 1)
        var refusedSignIn = Self.item(.delete, [])
        refusedSignIn.notSent = .signInRefused("invalid_credentials")
        #expect(LifecycleChecks.unanswered([refusedSignIn]).count == 1)
        var neverRegistered = Self.item(.delete, [])
        neverRegistered.notSent = .registrationFailed("deadline_exceeded")
        #expect(LifecycleChecks.unanswered([neverRegistered]).isEmpty)
        #expect(LifecycleChecks.unexpected([Self.item(corrupt, [.updated])]).count == 1, "a corrupt avatar must be refused")
        #expect(LifecycleChecks.unexpected([Self.item(Self.update, [.refused("invalid_credentials")])]).count == 1)
    }

    @Test func theImageIdOfAnAvatarURL() {
        #expect(LifecycleChecks.imageId(of: "http://127.0.0.1:9000/bucket/ProfileImages/abc-1.jpg") == "abc-1")
        #expect(LifecycleChecks.imageId(of: "file:///data/objects/ProfileImages/x.jpg") == "x")
        #expect(LifecycleChecks.imageId(of: "https://images.test/other/x.png") == nil)
    }
}
