import Foundation
import Synchronization

/// A clock that moves only when told to: steps read the time from it instead of waiting for it.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    /// The clock as a step's `clock:` closure.
    public var closure: @Sendable () -> Date { { self.now } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
