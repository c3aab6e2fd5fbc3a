import Domain
import Foundation
import Synchronization

/// A clock that moves only when told to: steps read the time from it instead of waiting for it.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>
    private let elapsed = Mutex(Duration.zero)

    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    /// The clock as a step's `clock:` closure.
    public var closure: @Sendable () -> Date { { self.now } }

    /// The monotonic time: how long the clock has advanced (its steps aside), as a ``ProgressWatch``'s uptime.
    public var uptime: ProgressWatch.Uptime { { self.elapsed.withLock { $0 } } }

    /// Time passes: the wall clock and the monotonic time advance by `seconds`.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
        elapsed.withLock { $0 += .milliseconds(Int64(seconds * 1_000)) }
    }

    /// The wall clock steps by `seconds` (an NTP correction, a VM resumed); the monotonic time does not move.
    public func step(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
