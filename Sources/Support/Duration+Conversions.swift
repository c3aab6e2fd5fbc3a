import Foundation

/// `Duration` in the units of the APIs that take plain numbers: Foundation's seconds, C timeouts in milliseconds.
extension Duration {
    /// Fractional seconds, as Foundation's `TimeInterval` APIs take them.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds, rounded down (toward zero).
    public var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Milliseconds as a C `int` timeout, clamped to `0...Int32.max`.
    public var timeoutMilliseconds: Int32 {
        Int32(clamping: max(0, milliseconds))
    }
}
