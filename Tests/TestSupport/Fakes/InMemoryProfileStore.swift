import Domain
import Registration
import Synchronization

/// Profiles in memory, with the revision of the last command applied to each uid.
public final class InMemoryProfileStore: ProfileStore {
    private let stored = Mutex<(profiles: [String: Profile], revisions: [String: Int])>(([:], [:]))
    /// Raised by every write.
    public let writes = Fault()

    public init() {}

    public func apply<T: Sendable>(revision: Int, uid: String, _ change: (inout Profile?) -> T) throws(StoreError) -> T? {
        try writes.check()
        return stored.withLock { state in
            if let applied = state.revisions[uid], applied > revision { return nil }
            var profile = state.profiles[uid]
            let result = change(&profile)
            state.profiles[uid] = profile
            state.revisions[uid] = revision
            return result
        }
    }

    public func profile(uid: String) throws(StoreError) -> Profile? {
        stored.withLock { $0.profiles[uid] }
    }

    public func profiles() throws(StoreError) -> [StoredProfile] {
        stored.withLock { $0.profiles.map { StoredProfile(uid: $0.key, profile: $0.value) }.sorted { $0.uid < $1.uid } }
    }
}
