import Domain
import Synchronization

/// A fault a store of the tests raises on its writes while it is armed: the store refusing (permanent) or
/// failing for a while (transient). It counts the writes it was checked by.
public final class Fault: Sendable {
    private let armed = Mutex<(error: StoreError, times: Int)?>(nil)
    private let checked = Mutex(0)

    /// How many writes came through (whether they failed or not).
    public var checks: Int { checked.withLock { $0 } }

    public init() {}

    /// Makes the next `times` writes throw `error`.
    public func arm(_ error: StoreError, times: Int = .max) {
        armed.withLock { $0 = (error, times) }
    }

    public func disarm() {
        armed.withLock { $0 = nil }
    }

    /// Throws the armed error, counting it down.
    public func check() throws(StoreError) {
        checked.withLock { $0 += 1 }
        let error: StoreError? = armed.withLock { armed in
            guard let current = armed else { return nil }
            armed = current.times > 1 ? (current.error, current.times - 1) : nil
            return current.error
        }
        if let error { throw error }
    }
}
