import Foundation
import Domain
import Registration

/// Profiles (`users/<uid>`) in one SQL database, table `profiles`. Every write is an upsert of one
/// row, so a SQLite insert trigger that raises refuses every write, which surfaces as a permanent
/// `StoreError`.
public struct SQLProfileStore: ProfileStore {
    private let database: any SQLDatabase
    private let clock: @Sendable () -> Date

    /// The store in `database`, whose schema is created or migrated first; `clock` stamps `updated_at`.
    public init(database: any SQLDatabase, clock: @escaping @Sendable () -> Date = Date.init) throws(StoreError) {
        try database.migrate(Self.schema)
        self.database = database
        self.clock = clock
    }

    public func write(_ profile: Profile, uid: String) throws(StoreError) {
        let row = ProfileRow(uid: uid, profile: profile, updatedAt: clock())
        try database.withSession { (db) throws(SQLError) in try db.execute(ProfileRow.upsert, row.values) }
    }

    public func deleteProfile(uid: String) throws(StoreError) {
        try database.withSession { (db) throws(SQLError) in try db.execute("DELETE FROM profiles WHERE uid = ?", [uid]) }
    }

    public func profile(uid: String) throws(StoreError) -> Profile? {
        try profiles("WHERE uid = ?", [uid]).first?.profile
    }

    public func profiles() throws(StoreError) -> [StoredProfile] {
        try profiles("", []).map { StoredProfile(uid: $0.uid, profile: $0.profile) }
    }

    /// The profiles matching `filter` (a `WHERE` clause, or empty for all), by uid.
    private func profiles(_ filter: String, _ values: [any SQLValueConvertible]) throws(StoreError) -> [ProfileRow] {
        let sql = "\(ProfileRow.select) \(filter) ORDER BY uid"
        return try database.withSession { (db) throws(SQLError) in try db.query(sql, values, ProfileRow.init) }
    }

    private static let schema = SQLSchema(
        name: "profiles",
        sqlite: [
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
        ],
        postgres: [
            """
            CREATE TABLE profiles (
                uid TEXT COLLATE "C" PRIMARY KEY,
                name TEXT NOT NULL,
                email TEXT NOT NULL,
                profile_image TEXT NOT NULL,
                is_map_location_enabled BOOLEAN NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL
            );
            """,
        ])
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

    init(row: SQLRow) throws(SQLError) {
        uid = try row[0]
        profile = Profile(name: try row[1], email: try row[2], profileImage: try row[3], isMapLocationEnabled: try row[4])
        updatedAt = try row[5]
    }

    var values: [any SQLValueConvertible] {
        [uid, profile.name, profile.email, profile.profileImage, profile.isMapLocationEnabled, updatedAt]
    }
}
