import AccountChanges
import Backends
import Domain
import Foundation
import Registration
import SQLStores
@testable import TestSupport
import Testing

/// What every `ProfileUpdateStore` must do, checked against each implementation: an update begins only for an active
/// account still at the revision it was read at, one per account at a time, with the avatar the profile names as the one
/// it replaces; each save takes the account's next revision; once switched, its avatar is the account's (and the one a
/// deletion erases), and a deletion waits while an update is in flight.
@Suite(.tags(.production)) struct ProfileUpdateStoreBehaviourTests {
    @Test(arguments: StoreBackend.databases)
    func updatesRunOneAtATimeAndTheirAvatarBecomesTheAccounts(backend: StoreBackend) throws {
        try backend.withStore(BackendOptions.accountChangeStore(at:)) { (store) throws in
            let saga = try store.registered("r-editor", email: "editor@example.com")
            let account = try #require(try store.account(uid: saga.uid))
            #expect(try store.avatar(of: account) == saga.imageId, "the registration's avatar")
            let previous = Profile(name: "Ada", email: saga.email, profileImage: "file:///ProfileImages/\(saga.imageId).jpg", isMapLocationEnabled: false)
            let record = ProfileUpdateRecord(requestId: "p-1", uid: saga.uid, fields: ProfileFields(name: "Ada L", isMapLocationEnabled: true),
                                             previous: previous, newImageId: "new-image", oldImageId: saga.imageId, replyKey: "k",
                                             stage: .storingAvatar, updatedAt: startDate)

            #expect(throws: StoreError.self, "an account moved since it was read: read again") {
                try store.begin(record, atRevision: account.revision - 1)
            }
            guard case .started(let started) = try store.begin(record, atRevision: account.revision) else {
                Issue.record("not begun")
                return
            }
            #expect(started.revision == account.revision + 1 && started.oldImageId == saga.imageId)
            #expect(try store.profileUpdate(requestId: "p-1") == started)
            #expect(try store.begin(record, atRevision: account.revision) == .existing(started))
            var second = record
            second.requestId = "p-2"
            #expect(try store.begin(second, atRevision: started.revision) == .inFlight, "one update of a profile at a time")
            let deletion = DeletionRecord(requestId: "d-1", uid: saga.uid, email: saga.email, imageId: saga.imageId, stage: .erasingAvatar,
                                          updatedAt: startDate)
            #expect(try store.begin(deletion, endingSessionsAt: startDate, announcing: nil) == .profileUpdateInFlight, "a deletion waits for it")
            #expect(try store.account(uid: saga.uid)?.status == .active)

            var switched = started
            switched.stage = .discardingOldAvatar
            switched.fields.profileImage = "file:///ProfileImages/new-image.jpg"
            let saved = try store.save(switched)
            #expect(saved.revision > started.revision)
            #expect(try store.avatar(of: account) == "new-image", "the profile names the new avatar once switched")
            #expect(try store.profileUpdates(in: ProfileUpdateStage.waiting, updatedBefore: .distantFuture).map(\.requestId) == ["p-1"])
            var completed = saved
            completed.stage = .completed
            completed.sealedProfile = "sealed"
            #expect(try store.save(completed).stage == .completed)
            #expect(try store.profileUpdates(in: ProfileUpdateStage.waiting, updatedBefore: .distantFuture).isEmpty)

            // The next update replaces the new avatar; a deletion now erases it.
            let now = try #require(try store.account(uid: saga.uid))
            guard case .started(let next) = try store.begin(second, atRevision: now.revision) else {
                Issue.record("the next update did not begin")
                return
            }
            #expect(next.oldImageId == "new-image")
            var failed = next
            failed.stage = .failed
            failed.failure = Failure(.imageCorrupt, "bad")
            _ = try store.save(failed)
            #expect(try store.avatar(of: now) == "new-image", "a failed update changed no avatar")
            guard case .started(let erasing) = try store.begin(deletion, endingSessionsAt: startDate, announcing: nil) else {
                Issue.record("the deletion did not begin")
                return
            }
            #expect(erasing.imageId == "new-image" && erasing.stage == .erasingAvatar)
        }
    }
}
