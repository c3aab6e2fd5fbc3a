import Domain
import Foundation
import Testing
@testable import Registration

/// The claim check as the contract states it: a staged avatar is read from `staging/` only, and
/// deleted once used; a request naming any other object of the store neither reads nor deletes it.
@Suite struct AvatarStagingTests {
    final class MemoryObjects: ObjectStore, @unchecked Sendable {
        private let lock = NSLock()
        private var objects: [String: [UInt8]] = [:]

        func put(_ bytes: [UInt8], key: String, contentType: String) { lock.withLock { objects[key] = bytes } }
        func get(_ key: String) -> [UInt8]? { lock.withLock { objects[key] } }
        func contains(_ key: String) -> Bool { get(key) != nil }
        func delete(_ key: String) { _ = lock.withLock { objects.removeValue(forKey: key) } }
        func list(prefix: String) -> [StoredObject] { [] }
        func url(for key: String) -> String { "memory:///\(key)" }
    }

    struct PassThrough: AvatarImaging {
        func process(_ original: [UInt8]) -> Result<[UInt8], Failure> { .success(original) }
        func defaultAvatar() -> [UInt8] { [0] }
    }

    let objects = MemoryObjects()
    var step: AvatarStep { AvatarStep(images: objects, imaging: PassThrough(), sha256: { "\($0.count)" }) }

    func store(_ key: String) throws -> [Event] {
        try step.handle(.storeAvatar(StoreAvatar(registrationId: "r-1", imageId: "i-1", avatar: .staged(key: key, sha256: "3", size: 3))))
    }

    @Test func aStagedAvatarIsStoredAndItsUploadDeleted() throws {
        objects.put([1, 2, 3], key: AvatarStep.stagingKey(registrationId: "r-1"), contentType: "")
        #expect(try store("staging/r-1") == [.avatarStored(AvatarStored(registrationId: "r-1", imageId: "i-1", url: "memory:///ProfileImages/i-1.jpg"))])
        #expect(objects.get("ProfileImages/i-1.jpg") == [1, 2, 3])
        #expect(!objects.contains("staging/r-1"))
    }

    @Test func aKeyOutsideStagingIsNeitherReadNorDeleted() throws {
        objects.put([7, 7, 7], key: "ProfileImages/someone-else.jpg", contentType: "image/jpeg")
        let outputs = try store("ProfileImages/someone-else.jpg")
        guard case .avatarRejected(let rejected) = outputs.first else { Issue.record("\(outputs)"); return }
        #expect(rejected.reason == .imageStagingMissing)
        #expect(objects.get("ProfileImages/someone-else.jpg") == [7, 7, 7])
        #expect(!objects.contains("ProfileImages/i-1.jpg"))
    }
}
