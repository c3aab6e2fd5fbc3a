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

/// What an account's failures are counted for: each kind locks only its own paths, so that five wrong
/// passwords (which anyone can send) never block a sign-in with an emailed code, and the other way round.
public enum FailureKind: String, Sendable, CaseIterable {
    /// Wrong passwords: locks password sign-in and re-authentication.
    case password
    /// Wrong one-time codes, across codes and purposes: locks code sign-in, reset and email-change codes.
    case code
}

/// Per-account brute-force protection: after `threshold` failures in a row the account is locked for
/// `base` seconds, doubling with every further failure up to `maximum` (OWASP; Keycloak, Auth0). No lock outlasts
/// `maximum`, however many failures: someone without the owner's secrets can slow the owner down, never lock them out
/// (and a code mailed to the owner's address passes every lock: ``CodeForm/recovery``). Past the cap, a guess costs
/// `maximum` each, so a password gets at most 96 guesses a day (the default 15 minutes).
public struct LockoutPolicy: Sendable, Equatable {
    public var threshold: Int
    public var base: Double
    public var maximum: Double

    public init(threshold: Int = 5, base: Double = 60, maximum: Double = 900) {
        self.threshold = threshold
        self.base = base
        self.maximum = maximum
    }

    /// The policy for wrong codes: like passwords, but the lock grows to an hour.
    public static let codes = LockoutPolicy(maximum: 3600)

    public func isLocked(_ failures: SignInFailures, at now: Date) -> Bool {
        failures.lockedUntil.map { now < $0 } ?? false
    }

    /// The failures after one more; attempts while locked are not counted (they are refused unchecked).
    public func failed(_ failures: SignInFailures, at now: Date) -> SignInFailures {
        guard !isLocked(failures, at: now) else { return failures }
        let count = failures.consecutive + 1
        guard count >= threshold else { return SignInFailures(consecutive: count, lockedUntil: failures.lockedUntil) }
        let wait = min(base * pow(2, Double(min(count - threshold, 62))), maximum)
        return SignInFailures(consecutive: count, lockedUntil: now.addingTimeInterval(wait))
    }
}
