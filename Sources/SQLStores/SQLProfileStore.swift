import Accounts
import Foundation
import Domain

/// Profiles (`users/<uid>`) in one SQL database, table `profiles`, and the revision of the last command applied
/// to each uid, table `profile_revisions`; each change of a profile is announced (`ProfileUpdated`) through the outbox
/// `profile_outbox`, in the change's transaction. Every write is an upsert of one row, so a SQLite insert trigger that
/// raises refuses every write, which surfaces as a permanent `StoreError`.
public struct SQLProfileStore: ProfileStore {
    private let database: any SQLDatabase
    private let clock: @Sendable () -> Date

    /// The store in `database`, whose schema is created or migrated first; `clock` stamps `updated_at`.
    public init(database: any SQLDatabase, clock: @escaping @Sendable () -> Date = Date.init) throws(StoreError) {
        try database.migrate(Self.schema)
        self.database = database
        self.clock = clock
    }

    /// Concurrent commands for one uid wait for each other (a lock per uid, held also while no row exists yet).
    public func apply<T: Sendable>(revision: Int, uid: String, _ change: (inout Profile?) -> T) throws(StoreError) -> T? {
        let now = clock()
        return try database.inTransaction { (db) throws(SQLError) -> T? in
            try db.lock(uid, in: .profiles)
            let applied = try db.query("SELECT revision FROM profile_revisions WHERE uid = ?", [uid]) { (row) throws(SQLError) -> Int in try row[0] }.first
            if let applied, applied > revision { return nil }
            let stored = try db.query("\(ProfileRow.select) WHERE uid = ?", [uid], ProfileRow.init).first?.profile
            var profile = stored
            let result = change(&profile)
            if let profile, profile != stored {
                try db.execute(ProfileRow.upsert, ProfileRow(uid: uid, profile: profile, updatedAt: now).values)
                // A change of an existing profile is announced with it (its creation, by the registration's event).
                if let stored, let event = AccountEvent.profileUpdated(uid: uid, from: stored, to: profile, at: now) {
                    try SQLOutbox.keep(event.message, in: SQLOutbox.profilesTable, db)
                }
            } else if profile == nil, stored != nil {
                try db.execute("DELETE FROM profiles WHERE uid = ?", [uid])
            }
            try db.execute("""
                INSERT INTO profile_revisions (uid, revision) VALUES (?, ?)
                ON CONFLICT (uid) DO UPDATE SET revision = EXCLUDED.revision
                """, [uid, revision])
            return result
        }
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

    static let schema = SQLSchema(
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
            "CREATE TABLE profile_revisions (uid TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL) STRICT;",
            SQLOutbox.migration(table: SQLOutbox.profilesTable, postgres: false),
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
            #"CREATE TABLE profile_revisions (uid TEXT COLLATE "C" PRIMARY KEY, revision BIGINT NOT NULL);"#,
            SQLOutbox.migration(table: SQLOutbox.profilesTable, postgres: true),
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
