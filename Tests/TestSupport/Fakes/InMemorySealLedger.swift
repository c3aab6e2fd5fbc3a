import Domain
import Foundation
import Registration
import Synchronization

/// The request ids whose seals were used, in memory.
public final class InMemorySealLedger: SealLedger {
    private let used = Mutex<[String: (digest: String, at: Date)]>([:])

    public init() {}

    public func claim(requestId: String, digest: String, at date: Date) throws(StoreError) -> Bool {
        used.withLock { used in
            if used[requestId] == nil { used[requestId] = (digest, date) }
            return used[requestId]?.digest == digest
        }
    }

    public func forget(claimedBefore date: Date) throws(StoreError) -> Int {
        used.withLock { used in
            let old = used.filter { $0.value.at < date }.keys
            for key in old { used[key] = nil }
            return old.count
        }
    }
}
