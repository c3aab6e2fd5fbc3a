@testable import Backends
import Domain
import Foundation
import Registration
import Synchronization
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct FileObjectStoreTests {
    @Test(arguments: ["", "/etc/passwd", "../outside", "a/../../outside", "a//b", "a/", "./a", ".hidden", "a/.tmp"])
    func refusesKeysOutsideTheTree(key: String) throws {
        try withTemporaryDirectory { directory in
            let store = try FileObjectStore(root: "\(directory)/objects")
            let error = #expect(throws: StoreError.self) { try store.put([1], key: key, contentType: "text/plain") }
            #expect(error?.kind == .permanent)
            #expect(throws: StoreError.self) { try store.get(key) }
            #expect(throws: StoreError.self) { try store.delete(key) }
            if !key.isEmpty { #expect(throws: StoreError.self) { try store.list(prefix: key + "/") } }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["objects"])
        }
    }

    @Test func aKeyThatCollidesWithADirectoryIsPermanent() throws {
        try withTemporaryDirectory { directory in
            let store = try FileObjectStore(root: "\(directory)/objects")
            try store.put([1], key: "a/b", contentType: "text/plain")
            #expect((#expect(throws: StoreError.self) { try store.put([2], key: "a", contentType: "text/plain") })?.kind == .permanent)
            #expect((#expect(throws: StoreError.self) { try store.put([2], key: "a/b/c", contentType: "text/plain") })?.kind == .permanent)
            #expect(try store.get("a/b") == [1])
        }
    }

    @Test func replacesAtomically() throws {
        try withTemporaryDirectory { directory in
            let store = try FileObjectStore(root: "\(directory)/objects")
            let versions = (1...4).map { [UInt8](repeating: UInt8($0), count: $0 * 100_000) }
            try store.put(versions[0], key: "k", contentType: "application/octet-stream")
            let torn = Mutex(0)
            onThreads(8) { index in
                for round in 0..<20 {
                    do {
                        if index < 4 {
                            try store.put(versions[(index + round) % 4], key: "k", contentType: "application/octet-stream")
                        } else if let bytes = try store.get("k"), !versions.contains(bytes) {
                            torn.withLock { $0 += 1 }
                        }
                    } catch {
                        torn.withLock { $0 += 1 }
                    }
                }
            }
            #expect(torn.withLock { $0 } == 0)
            // No temporary files are left behind.
            #expect(try FileManager.default.contentsOfDirectory(atPath: "\(directory)/objects") == ["k"])
        }
    }

    @Test func urlsAreFileURLsUnlessAPublicBaseIsSet() throws {
        try withTemporaryDirectory { directory in
            let local = try FileObjectStore(root: "\(directory)/objects/../objects")
            #expect(local.url(for: "ProfileImages/a b.jpg") == "file://\(directory)/objects/ProfileImages/a%20b.jpg")
            let published = try FileObjectStore(root: "\(directory)/objects", publicBaseURL: "https://cdn.example.com/media/")
            #expect(published.url(for: "ProfileImages/a.jpg") == "https://cdn.example.com/media/ProfileImages/a.jpg")
        }
    }

    @Test func dataDirectoryCreatesItsLayout() throws {
        try withTemporaryDirectory { directory in
            let data = try DataDirectory("\(directory)/data/nested")
            _ = try DataDirectory(data.path)
            #expect(data.accountsDatabase == "\(directory)/data/nested/accounts.sqlite")
            #expect(data.profilesDatabase == "\(directory)/data/nested/profiles.sqlite")
            for path in [data.objects, data.outbox] {
                var isDirectory: ObjCBool = false
                #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
            }
            // Holding databases and codes, the directory and the outbox are private; keys are left to the workers holding them.
            for path in [data.path, data.outbox] {
                #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o700)
            }
            #expect(!FileManager.default.fileExists(atPath: data.keys))
        }
    }
}

/// A file system that is full refuses a put transiently, so the image worker waits instead of failing
/// the registration; the put succeeds once there is room. (Root only: it mounts a 1 MiB tmpfs.)
@Suite(.tags(.unit)) struct FileObjectStoreFullDiskTests {
    @Test(.enabled(if: getuid() == 0, "mount needs root"))
    func aFullDiskIsTransient() throws {
        try withSmallFileSystem { mount in
            let store = try FileObjectStore(root: "\(mount)/objects")
            let avatar = [UInt8](repeating: 7, count: 2 * 1024 * 1024)
            let full = #expect(throws: StoreError.self) { try store.put(avatar, key: "avatars/a.jpg", contentType: "image/jpeg") }
            #expect(full?.kind == .transient, "\(full?.message ?? "")")
            try store.put(Array(avatar.prefix(100_000)), key: "avatars/a.jpg", contentType: "image/jpeg")
            #expect(try store.get("avatars/a.jpg")?.count == 100_000)
        }
    }
}
