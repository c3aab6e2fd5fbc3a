import Domain
import Foundation
import Synchronization

/// A clock that moves only when told to: steps read the time from it instead of waiting for it. A `running` one
/// also moves with the real time, for a system that lives longer than its seals and codes count.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>
    private let elapsed = Mutex(Duration.zero)
    private let runningSince: ContinuousClock.Instant?

    public init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000), running: Bool = false) {
        current = Mutex(start)
        runningSince = running ? .now : nil
    }

    public var now: Date { current.withLock { $0 }.addingTimeInterval(Self.seconds(realElapsed)) }

    /// The real time passed since a running clock started (zero for one that moves only when told to).
    private var realElapsed: Duration { runningSince.map { .now - $0 } ?? .zero }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    /// The clock as a step's `clock:` closure.
    public var closure: @Sendable () -> Date { { self.now } }

    /// The monotonic time: how long the clock has advanced (its steps aside), as a ``ProgressWatch``'s uptime.
    public var uptime: ProgressWatch.Uptime { { self.elapsed.withLock { $0 } + self.realElapsed } }

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
