import Domain
import Foundation
@testable import Registration
@testable import TestSupport
import Testing

/// The claim check as the contract states it: a staged avatar is read from `staging/<registrationId>`
/// only, its stored size checked before it is read, and deleted once used; a request naming any other
/// object of the store neither reads nor deletes it.
@Suite(.tags(.unit)) struct AvatarStagingTests {
    struct PassThrough: AvatarImaging {
        func process(_ original: [UInt8]) -> Result<[UInt8], Failure> { .success(original) }
        func defaultAvatar() -> [UInt8] { [0] }
    }

    /// A file object store, counting reads of staged uploads and avatars (not of the image worker's own records).
    final class CountingObjects: ObjectStore, @unchecked Sendable {
        let objects = TemporaryObjectStore()
        private let lock = NSLock()
        private var readCount = 0
        private var largestRead = 0
        var reads: Int { lock.withLock { readCount } }
        /// The most bytes any read asked for (a whole object counts as its size).
        var largestReadLength: Int { lock.withLock { largestRead } }

        func put(_ bytes: [UInt8], key: String, contentType: String) throws(StoreError) { try objects.put(bytes, key: key, contentType: contentType) }
        func get(_ key: String) throws(StoreError) -> [UInt8]? {
            let bytes = try objects.get(key)
            if !key.hasPrefix("tombstones/") { lock.withLock { readCount += 1; largestRead = max(largestRead, bytes?.count ?? 0) } }
            return bytes
        }
        func prefix(of key: String, length: Int) throws(StoreError) -> [UInt8]? {
            lock.withLock { readCount += 1; largestRead = max(largestRead, length) }
            return try objects.prefix(of: key, length: length)
        }
        func size(of key: String) throws(StoreError) -> Int? { try objects.size(of: key) }
        func delete(_ key: String) throws(StoreError) { try objects.delete(key) }
        func list(prefix: String) throws(StoreError) -> [StoredObject] { try objects.list(prefix: prefix) }
        func url(for key: String) -> String { objects.url(for: key) }
    }

    let objects = CountingObjects()
    var step: AvatarStep { AvatarStep(images: objects, imaging: PassThrough(), sha256: { "\($0.count)" }) }

    func store(_ key: String, sha256: String = "3", size: Int = 3) throws -> [Event] {
        try step.handle(.storeAvatar(StoreAvatar(registrationId: "r-1", imageId: "i-1", avatar: .staged(key: key, sha256: sha256, size: size), step: "awaiting_avatar", revision: 1)))
    }

    func rejection(_ outputs: [Event]) -> ReasonCode? {
        guard case .avatarRejected(let rejected) = outputs.first, outputs.count == 1 else { return nil }
        return rejected.reason
    }

    @Test func aStagedAvatarIsStoredAndItsUploadDeleted() throws {
        try objects.put([1, 2, 3], key: AvatarStep.stagingKey(registrationId: "r-1"), contentType: "")
        #expect(try store("staging/r-1")
            == [.avatarStored(AvatarStored(registrationId: "r-1", imageId: "i-1", url: "https://images.example.com/ProfileImages/i-1.jpg"))])
        #expect(try objects.get("ProfileImages/i-1.jpg") == [1, 2, 3])
        #expect(try !objects.contains("staging/r-1"))
    }

    /// Issue 21 point 4: the staged object is read no further than the size that was checked (one byte more, to
    /// tell an object that grew), never whole.
    @Test func theStagedReadIsBoundedByTheCheckedSize() throws {
        try objects.put([1, 2, 3], key: AvatarStep.stagingKey(registrationId: "r-1"), contentType: "")
        _ = try store("staging/r-1")
        #expect(objects.largestReadLength == 4)
    }

    /// Issue 21 point 4: the sweep deletes staged uploads changed before its cutoff, and nothing outside `staging/`.
    @Test func theSweepDeletesOnlyStagedUploadsOlderThanItsCutoff() throws {
        try objects.put([1], key: "staging/refused", contentType: "")
        try objects.put([2], key: "ProfileImages/kept.jpg", contentType: "image/jpeg")
        #expect(try step.sweepStaged(changedBefore: .distantPast) == 0)
        #expect(try objects.contains("staging/refused"))
        #expect(try step.sweepStaged(changedBefore: Date()) == 1)
        #expect(try !objects.contains("staging/refused") && objects.contains("ProfileImages/kept.jpg"))
    }

    @Test func aKeyOutsideStagingIsNeitherReadNorDeleted() throws {
        try objects.put([7, 7, 7], key: "ProfileImages/someone-else.jpg", contentType: "image/jpeg")
        #expect(rejection(try store("ProfileImages/someone-else.jpg")) == .imageStagingMissing)
        #expect(try objects.get("ProfileImages/someone-else.jpg") == [7, 7, 7])
        #expect(try !objects.contains("ProfileImages/i-1.jpg"))
    }

    /// Attack 5: a victim's avatar named as the staged key, with a wrong checksum, through `..` or as
    /// another registration's upload: refused, and neither that object nor the victim's avatar is read or deleted.
    @Test func onlyTheRegistrationsOwnStagingKeyIsReadOrDeleted() throws {
        let victim = "ProfileImages/victim.jpg"
        try objects.put([7, 7, 7], key: victim, contentType: "image/jpeg")
        try objects.put([8, 8, 8], key: "staging/r-2", contentType: "")
        for key in [victim, "staging/../" + victim, "staging/r-2", "staging/r-1/../r-2", "staging//r-1"] {
            #expect(rejection(try store(key, sha256: "wrong")) == .imageStagingMissing, "\(key)")
        }
        #expect(objects.reads == 0)
        #expect(try objects.get(victim) == [7, 7, 7])
        #expect(try objects.get("staging/r-2") == [8, 8, 8])
    }

    /// The stored size is checked before the staged object is read: a size other than the claimed one
    /// is corrupt, one over the avatar limit too large, and neither is read.
    @Test func theStagedSizeIsCheckedBeforeReading() throws {
        try objects.put([1, 2, 3, 4], key: "staging/r-1", contentType: "")
        #expect(rejection(try store("staging/r-1")) == .imageCorrupt)
        try objects.put([UInt8](repeating: 0, count: ContractLimits.avatarBytes + 1), key: "staging/r-1", contentType: "")
        #expect(rejection(try store("staging/r-1", size: ContractLimits.avatarBytes + 1)) == .imageTooLarge)
        #expect(objects.reads == 0)
    }
}
