import Domain
import Foundation
import Registration
import Synchronization

/// The request ids whose seals were used, in memory.
public final class InMemorySealLedger: SealLedger {
    private let used = Mutex<[String: String]>([:])

    public init() {}

    public func claim(requestId: String, digest: String, at date: Date) throws(StoreError) -> Bool {
        used.withLock { used in
            if used[requestId] == nil { used[requestId] = digest }
            return used[requestId] == digest
        }
    }
}
