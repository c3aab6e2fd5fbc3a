import Foundation
import Domain
import Registration
import Testing
@testable import EmbeddedStores

@Suite struct SQLiteProfileStoreTests {
    let ada = Profile(name: "Ada", email: "ada@example.com", profileImage: "file:///objects/ProfileImages/a.jpg",
                      isMapLocationEnabled: true)

    @Test func writesReplacesReadsAndDeletesProfiles() throws {
        try withTemporaryDirectory { directory in
            let store = try SQLiteProfileStore(path: "\(directory)/profiles.sqlite")
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

    @Test func aTriggerThatRaisesMakesWritesFailPermanently() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/profiles.sqlite"
            let store = try SQLiteProfileStore(path: path)
            try store.write(ada, uid: "u1")
            // Installed from another connection while the store's statement is prepared already.
            try SQLiteDatabase(path: path).execute(script: """
                CREATE TRIGGER refuse_profiles BEFORE INSERT ON profiles
                BEGIN SELECT RAISE(ABORT, 'profiles are frozen'); END;
                """)
            var changed = ada
            changed.name = "Changed"
            let error = #expect(throws: StoreError.self) { try store.write(changed, uid: "u1") }
            #expect(error?.kind == .permanent)
            #expect(error?.message == "profiles are frozen")
            #expect(try store.profile(uid: "u1") == ada)
        }
    }
}
