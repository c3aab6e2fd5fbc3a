import Accounts
import Domain
import Foundation

/// Profile updates (table `profile_updates`), in the account database so that an update's step takes its account
/// revision in the same transaction, and one update per account is in flight.
extension SQLAccountStore: ProfileUpdateStore {
    public func profileUpdate(requestId: String) throws(StoreError) -> ProfileUpdateRecord? {
        try database.withSession { (db) throws(SQLError) in try Self.profileUpdate(requestId, in: db) }
    }

    public func begin(_ record: ProfileUpdateRecord, atRevision revision: Int) throws(StoreError) -> ProfileUpdateStart {
        try database.inTransaction { (db) throws(SQLError) -> ProfileUpdateStart in
            if let existing = try Self.profileUpdate(record.requestId, in: db) { return .existing(existing) }
            // The account's row first: its lock orders this update after any other beginning, or any deletion.
            guard let next = try Self.takeRevision(of: record.uid, in: db),
                  let account = try db.query(Account.select + " WHERE uid = ?", [record.uid], Account.init).first,
                  account.status == .active else { return .notActive }
            guard next == revision + 1 else {
                throw SQLError(.transient, "account \(record.uid) moved while profile update \(record.requestId) began; it is read again")
            }
            if try Self.profileUpdateInFlight(uid: record.uid, in: db) { return .inFlight }
            var stored = record
            stored.revision = next
            stored.oldImageId = try Self.updatedAvatar(uid: record.uid, in: db) ?? record.oldImageId
            guard try db.execute(ProfileUpdateRecord.insertOrIgnore, stored.values) == 1 else {
                throw SQLError(.transient, "profile update \(record.requestId) was begun concurrently")
            }
            return .started(stored)
        }
    }

    public func save(_ record: ProfileUpdateRecord, keeping effects: [OutboxMessage]) throws(StoreError) -> ProfileUpdateRecord {
        try database.inTransaction { (db) throws(SQLError) -> ProfileUpdateRecord in
            try SQLOutbox.keep(effects: effects, db)
            var stored = record
            stored.revision = try Self.nextRevision(of: record.uid, in: db)
            try db.execute(ProfileUpdateRecord.upsert, stored.values)
            return stored
        }
    }

    public func profileUpdates(in stages: Set<ProfileUpdateStage>, updatedBefore date: Date) throws(StoreError) -> [ProfileUpdateRecord] {
        try records(in: stages, updatedBefore: date)
    }

    public func avatar(of account: Account) throws(StoreError) -> String? {
        try database.withSession { (db) throws(SQLError) -> String? in
            if let updated = try Self.updatedAvatar(uid: account.uid, in: db) { return updated }
            return try Self.saga(account.registrationId, in: db).flatMap { $0.imageId.isEmpty ? nil : $0.imageId }
        }
    }

    public func profileUpdates(uid: String) throws(StoreError) -> [ProfileUpdateRecord] {
        try database.withSession { (db) throws(SQLError) in
            try db.query(ProfileUpdateRecord.select + " WHERE uid = ? ORDER BY revision", [uid], ProfileUpdateRecord.init)
        }
    }

    /// Whether an update of the profile of `uid` is in flight.
    static func profileUpdateInFlight(uid: String, in db: SQLSession) throws(SQLError) -> Bool {
        let stages = ProfileUpdateStage.waiting.sorted { $0.rawValue < $1.rawValue }
        let sql = "SELECT request_id FROM profile_updates WHERE uid = ? AND stage IN (\(stages.map { _ in "?" }.joined(separator: ", ")))"
        return try !db.query(sql, [uid] + stages, { (row) throws(SQLError) -> String in try row[0] }).isEmpty
    }

    /// The avatar the latest update of the profile of `uid` switched it to, if one did.
    static func updatedAvatar(uid: String, in db: SQLSession) throws(SQLError) -> String? {
        let stages = ProfileUpdateStage.switched.sorted { $0.rawValue < $1.rawValue }
        let sql = "SELECT new_image_id FROM profile_updates WHERE uid = ? AND new_image_id IS NOT NULL AND stage IN ("
            + stages.map { _ in "?" }.joined(separator: ", ") + ") ORDER BY revision DESC LIMIT 1"
        return try db.query(sql, [uid] + stages, { (row) throws(SQLError) -> String in try row[0] }).first
    }

    private static func profileUpdate(_ requestId: String, in db: SQLSession) throws(SQLError) -> ProfileUpdateRecord? {
        try db.query(ProfileUpdateRecord.select + " WHERE request_id = ?", [requestId], ProfileUpdateRecord.init).first
    }
}

extension ProfileUpdateStage: SQLValueConvertible {}

extension ProfileUpdateRecord: TableRecord {
    static let table = "profile_updates"
    static let columns = [
        "request_id", "uid", "name", "profile_image", "is_map_location_enabled", "previous_name", "previous_email", "previous_profile_image",
        "previous_is_map_location_enabled", "new_image_id", "old_image_id", "reply_key", "sealed_profile", "stage", "failure_reason",
        "failure_message", "revision", "updated_at",
    ]

    init(row: SQLRow) throws(SQLError) {
        let reason: ReasonCode? = try row[14]
        let message: String? = try row[15]
        self.init(requestId: try row[0], uid: try row[1],
                  fields: ProfileFields(name: try row[2], profileImage: try row[3], isMapLocationEnabled: try row[4]),
                  previous: Profile(name: try row[5], email: try row[6], profileImage: try row[7], isMapLocationEnabled: try row[8]),
                  newImageId: try row[9], oldImageId: try row[10], replyKey: try row[11], sealedProfile: try row[12], stage: try row[13],
                  failure: reason.map { Failure($0, message ?? "") }, revision: try row[16], updatedAt: try row[17])
    }

    var values: [any SQLValueConvertible] {
        [requestId, uid, fields.name, fields.profileImage, fields.isMapLocationEnabled, previous.name, previous.email, previous.profileImage,
         previous.isMapLocationEnabled, newImageId, oldImageId, replyKey, sealedProfile, stage, failure?.reason, failure?.message, revision,
         updatedAt]
    }
}
