import Synchronization

/// The request body bytes all connections hold at once, bounded together: each request takes what it
/// announces (or, chunked, what arrives) before it is read, and gives it back when it is over.
final class BodyBudget: Sendable {
    let capacity: Int
    private let used = Mutex(0)

    init(capacity: Int) { self.capacity = capacity }

    /// Takes `bytes` if they fit beside what is held; whether they did.
    func take(_ bytes: Int) -> Bool {
        used.withLock { used in
            guard used + bytes <= capacity else { return false }
            used += bytes
            return true
        }
    }

    func give(_ bytes: Int) { used.withLock { $0 -= bytes } }
}
