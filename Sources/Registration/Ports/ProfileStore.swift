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

/// The profile database (`users/<uid>`).
public protocol ProfileStore: Sendable {
    /// Writes (inserts or replaces) the profile of `uid`.
    func write(_ profile: Profile, uid: String) throws(StoreError)
    /// Deletes the profile of `uid`; deleting a missing profile succeeds.
    func deleteProfile(uid: String) throws(StoreError)
    func profile(uid: String) throws(StoreError) -> Profile?
    /// Every profile (audits).
    func profiles() throws(StoreError) -> [StoredProfile]
}
