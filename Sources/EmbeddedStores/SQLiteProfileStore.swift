import Foundation
import Domain
import Registration

/// Profiles (`users/<uid>`) in one SQLite file (e.g. `<data>/profiles.sqlite`), table `profiles`.
///
/// Every write is an `INSERT OR REPLACE`, so an insert trigger that raises refuses every write,
/// which surfaces as a permanent `StoreError`.
public struct SQLiteProfileStore: ProfileStore {
    private let database: SQLiteDatabase
    private let clock: @Sendable () -> Date

    /// Opens the store at `path`, creating and migrating the file as needed; `clock` stamps `updated_at`.
    public init(path: String, clock: @escaping @Sendable () -> Date = Date.init) throws(StoreError) {
        database = try SQLiteDatabase(path: path, migrations: Self.migrations)
        self.clock = clock
    }

    public func write(_ profile: Profile, uid: String) throws(StoreError) {
        let row = ProfileRow(uid: uid, profile: profile, updatedAt: clock())
        try database.withConnection { (db) throws(StoreError) in try db.execute(ProfileRow.insertOrReplace, row.values) }
    }

    public func deleteProfile(uid: String) throws(StoreError) {
        try database.withConnection { (db) throws(StoreError) in try db.execute("DELETE FROM profiles WHERE uid = ?", [uid]) }
    }

    public func profile(uid: String) throws(StoreError) -> Profile? {
        try profiles("WHERE uid = ?", [uid]).first?.profile
    }

    public func profiles() throws(StoreError) -> [StoredProfile] {
        try profiles("", []).map { StoredProfile(uid: $0.uid, profile: $0.profile) }
    }

    /// The profiles matching `filter` (a `WHERE` clause, or empty for all), by uid.
    private func profiles(_ filter: String, _ values: [any SQLiteValueConvertible]) throws(StoreError) -> [ProfileRow] {
        let sql = "\(ProfileRow.select) \(filter) ORDER BY uid"
        return try database.withConnection { (db) throws(StoreError) in try db.query(sql, values, ProfileRow.init) }
    }

    /// The schema, one migration per entry (append only).
    private static let migrations = [
        """
        CREATE TABLE profiles (
            uid TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            email TEXT NOT NULL,
            profile_image TEXT NOT NULL,
            is_map_location_enabled INTEGER NOT NULL,
            updated_at REAL NOT NULL
        ) STRICT;
        """,
    ]
}

/// A row of `profiles`: a profile, its uid and when it was last written.
private struct ProfileRow: TableRecord, Sendable {
    var uid: String
    var profile: Profile
    var updatedAt: Date

    static let table = "profiles"
    static let columns = ["uid", "name", "email", "profile_image", "is_map_location_enabled", "updated_at"]

    init(uid: String, profile: Profile, updatedAt: Date) {
        self.uid = uid
        self.profile = profile
        self.updatedAt = updatedAt
    }

    init(row: SQLiteRow) throws(StoreError) {
        uid = try row[0]
        profile = Profile(name: try row[1], email: try row[2], profileImage: try row[3], isMapLocationEnabled: try row[4])
        updatedAt = try row[5]
    }

    var values: [any SQLiteValueConvertible] {
        [uid, profile.name, profile.email, profile.profileImage, profile.isMapLocationEnabled, updatedAt]
    }
}
