import Foundation
@testable import SignIn
@testable import TestSupport
import Testing

/// Per-account lockout: five failures lock for the base time, each further failure doubles it up to the cap; no lock
/// holds longer than the cap.
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

    /// No lock holds for good: past the cap every further failure locks for the cap again, and the lock expires.
    /// Someone without the password can slow its owner down, never lock them out (and the mailbox always lets them in).
    @Test func noLockOutlastsTheCapHoweverManyFailures() {
        var failures = SignInFailures()
        var time = now
        for _ in 1...500 {
            failures = policy.failed(failures, at: time)
            #expect((failures.lockedUntil ?? time).timeIntervalSince(time) <= policy.maximum)
            time = max(time, failures.lockedUntil ?? time)
        }
        #expect(failures.consecutive == 500 && failures.lockedUntil == time)
        #expect(!policy.isLocked(failures, at: time), "the last lock has expired")
        #expect(policy.failed(failures, at: time).lockedUntil == time.addingTimeInterval(900))
    }
}
