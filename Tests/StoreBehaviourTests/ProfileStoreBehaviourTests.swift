import Backends
import Domain
import Registration
@testable import TestSupport
import Testing

/// What every `ProfileStore` must do, checked against each implementation.
@Suite(.tags(.production)) struct ProfileStoreBehaviourTests {
    let ada = Profile(name: "Ada", email: "ada@example.com", profileImage: "file:///objects/ProfileImages/a.jpg",
                      isMapLocationEnabled: true)

    @Test(arguments: StoreBackend.allCases)
    func writesReplacesReadsAndDeletesProfiles(backend: StoreBackend) throws {
        try backend.withProfileStore { (store) throws in
            try store.write(ada, uid: "u1")
            var renamed = ada
            renamed.name = "Ada L."
            renamed.isMapLocationEnabled = false
            try store.write(renamed, uid: "u1")
            try store.write(ada, uid: "u2")
            #expect(try store.profile(uid: "u1") == renamed)
            #expect(try store.profiles() == [StoredProfile(uid: "u1", profile: renamed), StoredProfile(uid: "u2", profile: ada)])

            try store.deleteProfile(uid: "u1")
            try store.deleteProfile(uid: "u1")
            #expect(try store.profile(uid: "u1") == nil)
            #expect(try store.profiles().map(\.uid) == ["u2"])
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func profilesAreListedInBytewiseUidOrder(backend: StoreBackend) throws {
        try backend.withProfileStore { (store) throws in
            for uid in ["b", "B", "a", "_", "Z"] { try store.write(ada, uid: uid) }
            #expect(try store.profiles().map(\.uid) == ["B", "Z", "_", "a", "b"])
        }
    }
}
