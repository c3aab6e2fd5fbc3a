import Domain
import Foundation
import Registration
import S3Store
@testable import TestSupport
import Testing

/// What every `ObjectStore` must do, checked against each implementation.
@Suite(.tags(.production)) struct ObjectStoreBehaviourTests {
    @Test(arguments: ObjectStoreBackend.allCases)
    func putsGetsAndDeletesObjects(backend: ObjectStoreBackend) throws {
        try backend.withStore { (store) throws in
            let key = "ProfileImages/a.jpg"
            #expect(try store.get(key) == nil)
            #expect(try store.contains(key) == false)
            try store.put([1, 2, 3], key: key, contentType: "image/jpeg")
            #expect(try store.get(key) == [1, 2, 3])
            #expect(try store.contains(key))
            try store.put([], key: key, contentType: "image/jpeg")
            #expect(try store.get(key) == [])
            try store.delete(key)
            try store.delete(key)
            try store.delete("never/there")
            #expect(try store.get(key) == nil)
            #expect(try store.contains("ProfileImages") == false)
        }
    }

    /// The size comes from a stat or HEAD: nil for a missing object.
    @Test(arguments: ObjectStoreBackend.allCases)
    func givesAnObjectsSizeWithoutReadingIt(backend: ObjectStoreBackend) throws {
        try backend.withStore { (store) throws in
            #expect(try store.size(of: "staging/r-1") == nil)
            try store.put([1, 2, 3, 4, 5], key: "staging/r-1", contentType: "application/octet-stream")
            #expect(try store.size(of: "staging/r-1") == 5)
            try store.put([], key: "staging/r-1", contentType: "application/octet-stream")
            #expect(try store.size(of: "staging/r-1") == 0)
        }
    }

    /// Keys with `.` or `..` segments, backslashes, control characters or a leading `/` are refused
    /// permanently by every call, and the object they point at is untouched.
    @Test(arguments: ObjectStoreBackend.allCases)
    func refusesKeysThatLeaveTheNamespace(backend: ObjectStoreBackend) throws {
        try backend.withStore { (store) throws in
            try store.put([7], key: "ProfileImages/victim.jpg", contentType: "image/jpeg")
            let keys = ["/ProfileImages/victim.jpg", "staging/../ProfileImages/victim.jpg", "staging/./x", "..", ".",
                        "staging\\..\\ProfileImages\\victim.jpg", "staging/x\u{0}", "staging/x\ny", "staging//x", ""]
            for key in keys {
                let calls: [(String, () throws(StoreError) -> Void)] = [
                    ("put", { () throws(StoreError) in try store.put([0], key: key, contentType: "image/jpeg") }),
                    ("get", { () throws(StoreError) in _ = try store.get(key) }),
                    ("size", { () throws(StoreError) in _ = try store.size(of: key) }),
                    ("delete", { () throws(StoreError) in try store.delete(key) }),
                ]
                for (name, call) in calls {
                    do throws(StoreError) {
                        try call()
                        Issue.record("\(name) accepted \(key.debugDescription)")
                    } catch {
                        #expect(error.kind == .permanent, "\(name) \(key.debugDescription)")
                    }
                }
            }
            #expect(try store.get("ProfileImages/victim.jpg") == [7])
        }
    }

    @Test(arguments: ObjectStoreBackend.allCases)
    func storesLargeObjectsIntact(backend: ObjectStoreBackend) throws {
        try backend.withStore { (store) throws in
            let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
            try store.put(bytes, key: "staging/big", contentType: "application/octet-stream")
            #expect(try store.get("staging/big") == bytes)
            #expect(try store.list(prefix: "staging/").first?.size == bytes.count)
        }
    }

    @Test(arguments: ObjectStoreBackend.allCases)
    func listsByPrefix(backend: ObjectStoreBackend) throws {
        try backend.withStore { (store) throws in
            for key in ["ProfileImages/b.jpg", "ProfileImages/a.jpg", "staging/r1", "staging/r2", "staging/x1"] {
                try store.put(Array(key.utf8), key: key, contentType: "application/octet-stream")
            }
            #expect(try store.list(prefix: "staging/").map(\.key) == ["staging/r1", "staging/r2", "staging/x1"])
            #expect(try store.list(prefix: "staging/r").map(\.key) == ["staging/r1", "staging/r2"])
            #expect(try store.list(prefix: "Profile").map(\.key) == ["ProfileImages/a.jpg", "ProfileImages/b.jpg"])
            #expect(try store.list(prefix: "").count == 5)
            #expect(try store.list(prefix: "nothing/").isEmpty)
            let object = try #require(try store.list(prefix: "ProfileImages/a").first)
            #expect(object.size == "ProfileImages/a.jpg".utf8.count)
            #expect(abs(object.modifiedAt.timeIntervalSinceNow) < 60)
        }
    }

    @Test(arguments: ObjectStoreBackend.allCases)
    func urlsServeTheObject(backend: ObjectStoreBackend) throws {
        try backend.withStore { (store) throws in
            let key = "ProfileImages/a b+c.jpg"
            try store.put([9, 8, 7], key: key, contentType: "image/jpeg")
            if let s3 = store as? S3ObjectStore { try makePublic(key, in: s3.configuration) }
            let url = try #require(URL(string: store.url(for: key)))
            let fetched = url.isFileURL ? Array(try Data(contentsOf: url)) : try fetchAnonymously(url.absoluteString)
            #expect(fetched == [9, 8, 7])
        }
    }
}
