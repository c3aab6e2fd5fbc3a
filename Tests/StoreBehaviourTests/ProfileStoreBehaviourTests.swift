import Backends
import Domain
import Registration
import SQLStores
@testable import TestSupport
import Testing

/// What every `ProfileStore` must do, checked against each implementation.
@Suite(.tags(.production)) struct ProfileStoreBehaviourTests {
    let ada = Profile(name: "Ada", email: "ada@example.com", profileImage: "file:///objects/ProfileImages/a.jpg",
                      isMapLocationEnabled: true)

    @Test(arguments: StoreBackend.databases)
    func writesReplacesReadsAndDeletesProfiles(backend: StoreBackend) throws {
        try backend.withProfileStore { (store) throws in
            #expect(try store.write(ada, uid: "u1", revision: 1))
            var renamed = ada
            renamed.name = "Ada L."
            renamed.isMapLocationEnabled = false
            #expect(try store.write(renamed, uid: "u1", revision: 2))
            #expect(try store.write(ada, uid: "u2", revision: 1))
            #expect(try store.profile(uid: "u1") == renamed)
            #expect(try store.profiles() == [StoredProfile(uid: "u1", profile: renamed), StoredProfile(uid: "u2", profile: ada)])

            #expect(try store.deleteProfile(uid: "u1", revision: 3))
            #expect(try store.deleteProfile(uid: "u1", revision: 3))
            #expect(try store.profile(uid: "u1") == nil)
            #expect(try store.profiles().map(\.uid) == ["u2"])
        }
    }

    /// A command older than the last one applied to a uid changes nothing, even once the profile is deleted: a
    /// replayed write cannot bring back what a deletion removed, nor undo a later change.
    @Test(arguments: StoreBackend.databases)
    func anOlderVersionChangesNothing(backend: StoreBackend) throws {
        try backend.withProfileStore { (store) throws in
            #expect(try store.write(ada, uid: "u1", revision: 2))
            var moved = ada
            moved.email = "ada@new.example"
            #expect(try store.apply(revision: 4, uid: "u1") { $0?.email = moved.email } != nil)
            #expect(try store.write(ada, uid: "u1", revision: 2) == false)
            #expect(try store.apply(revision: 3, uid: "u1") { $0?.email = "old@example.com" } == nil)
            #expect(try store.profile(uid: "u1") == moved)
            #expect(try store.deleteProfile(uid: "u1", revision: 5))
            #expect(try store.write(ada, uid: "u1", revision: 2) == false)
            #expect(try store.profile(uid: "u1") == nil)
        }
    }

    @Test(arguments: StoreBackend.databases)
    func profilesAreListedInBytewiseUidOrder(backend: StoreBackend) throws {
        try backend.withProfileStore { (store) throws in
            for uid in ["b", "B", "a", "_", "Z"] { try store.write(ada, uid: uid, revision: 1) }
            #expect(try store.profiles().map(\.uid) == ["B", "Z", "_", "a", "b"])
        }
    }
}
