import Domain
/// A profile as stored under `users/<uid>`.
public struct StoredProfile: Sendable, Equatable {
    public var uid: String
    public var profile: Profile

    public init(uid: String, profile: Profile) {
        self.uid = uid
        self.profile = profile
    }
}

/// The profile database (`users/<uid>`), with the revision of the last saga command applied to each uid
/// (``SagaCommand``), kept also once the profile is deleted, so that no older command is applied after a newer one.
public protocol ProfileStore: Sendable {
    /// In one transaction: unless the uid's record already reflects a revision later than `revision` (then nothing
    /// changes and nil is returned), runs `change` on the profile of `uid` (nil when there is none), saves what it
    /// leaves (nil: deleted) and records `revision` as the uid's.
    func apply<T: Sendable>(revision: Int, uid: String, _ change: (inout Profile?) -> T) throws(StoreError) -> T?
    func profile(uid: String) throws(StoreError) -> Profile?
    /// Every profile (audits).
    func profiles() throws(StoreError) -> [StoredProfile]
}

extension ProfileStore {
    /// Writes (inserts or replaces) the profile of `uid` as of `revision`; false when a later revision was applied.
    @discardableResult
    public func write(_ profile: Profile, uid: String, revision: Int) throws(StoreError) -> Bool {
        try apply(revision: revision, uid: uid) { $0 = profile } != nil
    }

    /// Deletes the profile of `uid` as of `revision` (deleting a missing profile succeeds); false when a later
    /// revision was applied.
    @discardableResult
    public func deleteProfile(uid: String, revision: Int) throws(StoreError) -> Bool {
        try apply(revision: revision, uid: uid) { $0 = nil } != nil
    }
}
