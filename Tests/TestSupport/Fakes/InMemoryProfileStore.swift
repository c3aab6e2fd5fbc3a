import Domain
import Registration
import Synchronization

/// Profiles in memory.
public final class InMemoryProfileStore: ProfileStore {
    private let stored = Mutex<[String: Profile]>([:])
    /// Raised by every write.
    public let writes = Fault()

    public init() {}

    public func write(_ profile: Profile, uid: String) throws(StoreError) {
        try writes.check()
        stored.withLock { $0[uid] = profile }
    }

    public func deleteProfile(uid: String) throws(StoreError) {
        try writes.check()
        stored.withLock { $0[uid] = nil }
    }

    public func profile(uid: String) throws(StoreError) -> Profile? {
        stored.withLock { $0[uid] }
    }

    public func profiles() throws(StoreError) -> [StoredProfile] {
        stored.withLock { $0.map { StoredProfile(uid: $0.key, profile: $0.value) }.sorted { $0.uid < $1.uid } }
    }
}
