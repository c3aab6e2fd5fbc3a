import Domain
import Foundation
import Registration
import SQLStores
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct SQLiteProfileStoreTests {
    let ada = Profile(name: "Ada", email: "ada@example.com", profileImage: "file:///objects/ProfileImages/a.jpg",
                      isMapLocationEnabled: true)

    @Test func aTriggerThatRaisesMakesWritesFailPermanently() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/profiles.sqlite"
            let store = try SQLProfileStore(database: SQLiteDatabase(path: path))
            try store.write(ada, uid: "u1", revision: 1)
            // Installed from another connection while the store's statement is prepared already.
            try SQLiteDatabase(path: path).execute(script: """
                CREATE TRIGGER refuse_profiles BEFORE INSERT ON profiles
                BEGIN SELECT RAISE(ABORT, 'profiles are frozen'); END;
                """)
            var changed = ada
            changed.name = "Changed"
            let error = #expect(throws: StoreError.self) { try store.write(changed, uid: "u1", revision: 2) }
            #expect(error?.kind == .permanent)
            #expect(error?.message == "profiles are frozen")
            #expect(try store.profile(uid: "u1") == ada)
        }
    }
}
