import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// The image worker's part of the profile update saga on a file object store: a new avatar stored (inline, or
/// staged at the update's own key only), refused, discarded with a tombstone that refuses an older store; the
/// heartbeat while it waits.
@Suite(.tags(.unit)) struct NewAvatarStepTests {
    let images = TemporaryObjectStore()
    var step: AvatarStep { AvatarStep(images: images, imaging: FakeImaging(), sha256: { "sha-\($0.count)" }) }

    func store(_ avatar: AvatarSource, revision: Int = 4) -> Event {
        .storeNewAvatar(StoreNewAvatar(requestId: "p-1", uid: "u-1", imageId: "new", avatar: avatar, step: "storing_avatar", revision: revision))
    }

    @Test func aNewAvatarIsStoredUnderItsOwnIdAndAnsweredToTheUpdate() throws {
        let stored = Event.newAvatarStored(NewAvatarStored(requestId: "p-1", uid: "u-1", imageId: "new",
                                                           url: "https://images.example.com/ProfileImages/new.jpg"))
        let command = store(.inline(Data("JPEG photo".utf8).base64EncodedString()))
        #expect(try step.handle(command) == [stored])
        #expect(try step.handle(command) == [stored], "a redelivery answers the same")
        #expect(try images.get("ProfileImages/new.jpg") == Array("processed:JPEG photo".utf8))
        #expect(step.heartbeat(of: command) == [.newAvatarWaiting(ProfileUpdateWaiting(requestId: "p-1", uid: "u-1", step: "storing_avatar"))])
    }

    @Test func aRefusedAvatarIsAnsweredWithItsReasonAndNothingIsStored() throws {
        guard case .newAvatarRejected(let rejected) = try step.handle(store(.inline(Data("CORRUPT".utf8).base64EncodedString()))).first else {
            Issue.record("not rejected")
            return
        }
        #expect(rejected.reason == .imageCorrupt && rejected.uid == "u-1" && rejected.imageId == "new")
        #expect(try images.keys().isEmpty)
    }

    /// Only the update's own staging key is read: a registration's upload (whose id may be any an update's is) never.
    @Test func aStagedAvatarIsReadOnlyFromTheUpdatesOwnKey() throws {
        let bytes = Array("JPEG large".utf8)
        try images.put(bytes, key: AvatarStep.stagingKey(registrationId: "p-1"), contentType: "image/jpeg")
        guard case .newAvatarRejected(let rejected) = try step.handle(store(.staged(key: "staging/p-1", sha256: "sha-\(bytes.count)", size: bytes.count))).first else {
            Issue.record("a registration's upload was read")
            return
        }
        #expect(rejected.reason == .imageStagingMissing)
        #expect(try images.keys() == ["staging/p-1"], "the registration's upload is left alone")
        let key = AvatarStep.stagingKey(profileUpdateId: "p-1")
        try images.put(bytes, key: key, contentType: "image/jpeg")
        guard case .newAvatarStored = try step.handle(store(.staged(key: key, sha256: "sha-\(bytes.count)", size: bytes.count))).first else {
            Issue.record("the update's own upload was not stored")
            return
        }
        #expect(try !images.keys().contains(key), "the upload is removed once stored")
    }

    @Test func aDiscardedAvatarLeavesATombstoneThatRefusesAnOlderStore() throws {
        try images.put(Array("old".utf8), key: "ProfileImages/old.jpg", contentType: "image/jpeg")
        let discard = Event.discardAvatar(DiscardAvatar(requestId: "p-1", uid: "u-1", imageId: "old", step: "discarding_old_avatar", revision: 6))
        #expect(try step.handle(discard) == [.avatarDiscarded(AvatarDiscarded(requestId: "p-1", uid: "u-1", imageId: "old"))])
        #expect(try step.handle(discard) == [.avatarDiscarded(AvatarDiscarded(requestId: "p-1", uid: "u-1", imageId: "old"))], "idempotent")
        #expect(try !images.contains("ProfileImages/old.jpg"))
        // The new avatar discarded by a compensation: its late store (an older revision) is refused.
        _ = try step.handle(.discardAvatar(DiscardAvatar(requestId: "p-1", uid: "u-1", imageId: "new", step: "discarding_new_avatar", revision: 7)))
        #expect(throws: UntrustedEvent.self) { try step.handle(store(.inline(Data("JPEG late".utf8).base64EncodedString()), revision: 4)) }
        #expect(try !images.contains("ProfileImages/new.jpg"))
    }
}
