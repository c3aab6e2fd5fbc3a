import Foundation
@testable import SignIn
@testable import TestSupport
import Testing

/// Per-account lockout: five failures lock for the base time, each further failure doubles it up to the cap; the hundredth locks for good.
@Suite(.tags(.unit)) struct LockoutTests {
    let policy = LockoutPolicy()
    let now = Date(timeIntervalSince1970: 1_000_000)

    @Test func theFifthFailureLocksAndTheLockDoublesToTheCap() {
        var failures = SignInFailures()
        for _ in 1...4 { failures = policy.failed(failures, at: now) }
        #expect(!policy.isLocked(failures, at: now))
        var time = now
        for expected in [60.0, 120, 240, 480, 900, 900] {
            failures = policy.failed(failures, at: time)
            #expect(failures.lockedUntil == time.addingTimeInterval(expected))
            #expect(policy.isLocked(failures, at: time.addingTimeInterval(expected - 1)))
            time = time.addingTimeInterval(expected)
            #expect(!policy.isLocked(failures, at: time))
        }
    }

    @Test func failuresWhileLockedAreNotCounted() {
        var failures = SignInFailures()
        for _ in 1...5 { failures = policy.failed(failures, at: now) }
        #expect(policy.failed(failures, at: now.addingTimeInterval(30)) == failures)
    }

    /// NIST SP 800-63B: no more than 100 consecutive failures, however slowly they come.
    @Test func theHundredthFailureLocksForGood() {
        var failures = SignInFailures()
        var time = now
        for _ in 1...99 {
            failures = policy.failed(failures, at: time)
            time = max(time, failures.lockedUntil ?? time)
        }
        #expect(failures.consecutive == 99 && failures.lockedUntil == time)
        failures = policy.failed(failures, at: time)
        #expect(failures.consecutive == 100 && failures.lockedUntil == .distantFuture)
        #expect(policy.isLocked(failures, at: time.addingTimeInterval(10 * 365 * 86400)))
        #expect(policy.failed(failures, at: time.addingTimeInterval(86400)) == failures)
    }
}
