import Foundation

/// Consecutive failed sign-ins of one account and the lock they earned.
public struct SignInFailures: Sendable, Equatable {
    public var consecutive: Int
    public var lockedUntil: Date?

    public init(consecutive: Int = 0, lockedUntil: Date? = nil) {
        self.consecutive = consecutive
        self.lockedUntil = lockedUntil
    }
}

/// Per-account brute-force protection: after `threshold` failures in a row the account is locked for
/// `base` seconds, doubling with every further failure up to `maximum` (OWASP; Keycloak, Auth0).
public struct LockoutPolicy: Sendable, Equatable {
    public var threshold: Int
    public var base: Double
    public var maximum: Double

    public init(threshold: Int = 5, base: Double = 60, maximum: Double = 900) {
        self.threshold = threshold
        self.base = base
        self.maximum = maximum
    }

    public func isLocked(_ failures: SignInFailures, at now: Date) -> Bool {
        failures.lockedUntil.map { now < $0 } ?? false
    }

    /// The failures after one more; attempts while locked are not counted (they are refused unchecked).
    public func failed(_ failures: SignInFailures, at now: Date) -> SignInFailures {
        guard !isLocked(failures, at: now) else { return failures }
        let count = failures.consecutive + 1
        guard count >= threshold else { return SignInFailures(consecutive: count, lockedUntil: failures.lockedUntil) }
        let wait = min(base * pow(2, Double(count - threshold)), maximum)
        return SignInFailures(consecutive: count, lockedUntil: now.addingTimeInterval(wait))
    }
}
