import Domain
import Foundation
import SignIn
@testable import TestSupport
import Testing

/// Wrong codes are counted per account, apart from wrong passwords: neither lock blocks the other path.
extension SignInStepTests {
    @Test func aPasswordLockoutDoesNotBlockASignInWithAnEmailedCode() throws {
        let uid = try account("ada@example.com", password: "ada password")
        for attempt in 1...5 { _ = try step.handle(request(.password, "ada@example.com", "guess \(attempt)")) }
        #expect(accounts.failures(uid: uid).lockedUntil == clock.now.addingTimeInterval(60))
        try codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        #expect(try opened(try step.handle(request(.email, "ada@example.com", "123456"))).tokens.uid == uid)
        #expect(accounts.failures(uid: uid) == SignInFailures(), "the code proves the mailbox and clears the lock")
    }

    @Test func fiveWrongCodesLockCodeSignInButNotPasswordSignIn() throws {
        let uid = try account("ada@example.com", password: "ada password")
        try codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        for guess in 1...5 { _ = try step.handle(request(.email, "ada@example.com", "00000\(guess)")) }
        #expect(accounts.failures(uid: uid, of: .code).lockedUntil == clock.now.addingTimeInterval(60))
        try codes.issue("654321", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        #expect(refusal(try step.handle(request(.email, "ada@example.com", "654321")))?.reason == .invalidCredentials)
        #expect(try codes.record("ada@example.com", .login)?.usedBy == nil, "a locked account's code is not even checked")
        #expect(accounts.failures(uid: uid) == SignInFailures(), "wrong codes do not count as wrong passwords")
        _ = try opened(try step.handle(request(.password, "ada@example.com", "ada password")))
        #expect(accounts.failures(uid: uid, of: .code) == SignInFailures(), "a password sign-in clears the code count")
    }

    /// Attack 2 of issue 22: wrong digits drive the account's code count up, a lock at a time; every lock expires
    /// (an hour at most), and meanwhile the recovery form of a code mailed to the owner signs in and clears the counts.
    @Test func theOwnerComesBackWhateverTheCountersSay() throws {
        let uid = try account("ada@example.com", password: "ada password")
        for guess in 100_000..<100_300 {
            // Each guess as soon as the lock allows, and wrong passwords beside them.
            for kind in FailureKind.allCases {
                if let until = accounts.failures(uid: uid, of: kind).lockedUntil, until > clock.now { clock.advance(by: until.timeIntervalSince(clock.now)) }
            }
            try codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
            _ = try step.handle(request(.email, "ada@example.com", String(guess)))
            _ = try step.handle(request(.password, "ada@example.com", "guess \(guess)"))
            #expect((accounts.failures(uid: uid, of: .code).lockedUntil ?? clock.now).timeIntervalSince(clock.now) <= 3600)
        }
        #expect(accounts.failures(uid: uid, of: .code).consecutive == 300)
        #expect(accounts.failures(uid: uid, of: .code).lockedUntil! > clock.now, "locked right now")
        try codes.issue("123456", recovery: "ABCDEFGHIJKLMNOPQRST", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        #expect(refusal(try step.handle(request(.email, "ada@example.com", "123456")))?.reason == .invalidCredentials, "the digits wait for the lock")
        _ = try opened(try step.handle(request(.email, "ada@example.com", "abcde-fghij-klmno-pqrst")))
        #expect(accounts.failures(uid: uid, of: .code) == SignInFailures() && accounts.failures(uid: uid) == SignInFailures())
    }

    /// A password reset by the recovery form of its code works while the code paths are locked.
    @Test func aRecoveryCodeResetsThePasswordWhileTheCodePathsAreLocked() throws {
        let uid = try account("ada@example.com", password: "ada password")
        try codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        for guess in 1...5 { _ = try step.handle(request(.email, "ada@example.com", "00000\(guess)")) }
        #expect(accounts.failures(uid: uid, of: .code).lockedUntil! > clock.now)
        try codes.issue("123456", recovery: "BCDEFGHIJKLMNOPQRSTU", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        _ = try opened(try step.handle(request(.email, "ada@example.com", "BCDEFGHIJKLMNOPQRSTU")))
    }
}
