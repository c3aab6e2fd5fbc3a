import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// The image worker's step on a file object store: stored, refused, staged and compensated avatars.
@Suite(.tags(.unit)) struct AvatarStepTests {
    let images = TemporaryObjectStore()
    var step: AvatarStep { AvatarStep(images: images, imaging: FakeImaging(), sha256: { "sha-\($0.count)" }) }

    func store(_ avatar: AvatarSource?) -> Event {
        .storeAvatar(StoreAvatar(registrationId: "r-1", imageId: "i-1", avatar: avatar, step: "awaiting_avatar", revision: 1))
    }

    var stored: Event {
        .avatarStored(AvatarStored(registrationId: "r-1", imageId: "i-1", url: "https://images.example.com/ProfileImages/i-1.jpg"))
    }

    func rejected(_ events: [Event]) -> ReasonCode? {
        guard case .avatarRejected(let rejected) = events.first, events.count == 1 else { return nil }
        return rejected.reason
    }

    @Test func anInlineAvatarIsProcessedAndStored() throws {
        #expect(try step.handle(store(.inline(Data("JPEG photo".utf8).base64EncodedString()))) == [stored])
        #expect(try images.get("ProfileImages/i-1.jpg") == Array("processed:JPEG photo".utf8))
    }

    @Test func noAvatarStoresTheDefault() throws {
        #expect(try step.handle(store(nil)) == [stored])
        #expect(try images.get("ProfileImages/i-1.jpg") == FakeImaging.defaultJPEG)
    }

    @Test func aRefusedImageIsRejectedAndNothingIsStored() throws {
        #expect(rejected(try step.handle(store(.inline("not base64!")))) == .imageNotAnImage)
        #expect(rejected(try step.handle(store(.inline(Data("CORRUPT".utf8).base64EncodedString())))) == .imageCorrupt)
        #expect(try images.keys().isEmpty)
    }

    @Test func aStagedAvatarIsCheckedStoredAndItsUploadRemoved() throws {
        let bytes = Array("JPEG large".utf8)
        try images.put(bytes, key: AvatarStep.stagingKey(registrationId: "r-1"), contentType: "image/jpeg")
        #expect(rejected(try step.handle(store(.staged(key: "staging/r-1", sha256: "wrong", size: bytes.count)))) == .imageCorrupt)
        #expect(try images.keys().isEmpty, "a refused upload is discarded")
        try images.put(bytes, key: "staging/r-1", contentType: "image/jpeg")
        #expect(try step.handle(store(.staged(key: "staging/r-1", sha256: "sha-\(bytes.count)", size: bytes.count))) == [stored])
        #expect(try images.keys() == ["ProfileImages/i-1.jpg"])
        #expect(rejected(try step.handle(.storeAvatar(StoreAvatar(registrationId: "r-2", imageId: "i-2",
                                                                  avatar: .staged(key: "staging/r-2", sha256: "x", size: 1), step: "awaiting_avatar", revision: 1)))) == .imageStagingMissing)
    }

    @Test func aStoreRefusingTheImageRejectsItAndATransientFailureIsThrown() throws {
        images.puts.arm(StoreError(.permanent, "forbidden"), times: 1)
        #expect(rejected(try step.handle(store(nil))) == .imageStoreRejected)
        images.puts.arm(StoreError(.transient, "slow down"), times: 1)
        #expect(throws: StoreError.self) { try step.handle(store(nil)) }
        #expect(try step.handle(store(nil)) == [stored])
    }

    @Test func aRedeliveredCommandAnswersTheSameAndADeleteIsIdempotent() throws {
        let command = store(.inline(Data("JPEG photo".utf8).base64EncodedString()))
        #expect(try step.handle(command) == [stored])
        #expect(try step.handle(command) == [stored])
        let delete = Event.deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: "i-1", step: "compensating", revision: 3))
        let deleted = Event.avatarDeleted(AvatarDeleted(registrationId: "r-1", imageId: "i-1"))
        #expect(try step.handle(delete) == [deleted])
        #expect(try step.handle(delete) == [deleted])
        #expect(try images.keys() == [AvatarStep.tombstoneKey(imageId: "i-1")], "the avatar is gone; its record stays")
    }

    /// A command older than the deletion the image's record reflects — the store replayed, or overtaken by its
    /// compensation — is refused as stale: what compensation removed does not come back.
    @Test func aCommandOlderThanTheDeletionIsRefusedAsStale() throws {
        let command = store(nil)
        #expect(try step.handle(command) == [stored])
        #expect(try step.handle(.deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: "i-1", step: "compensating", revision: 3)))
            == [.avatarDeleted(AvatarDeleted(registrationId: "r-1", imageId: "i-1"))])
        for stale in [command, .deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: "i-1", step: "compensating", revision: 2))] {
            let error = #expect(throws: UntrustedEvent.self) { try step.handle(stale) }
            #expect(error?.reason == .staleCommand)
        }
        #expect(try !images.contains(AvatarStep.key(imageId: "i-1")))
    }
}
