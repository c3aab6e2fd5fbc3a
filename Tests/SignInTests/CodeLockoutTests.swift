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
        codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        #expect(try opened(try step.handle(request(.email, "ada@example.com", "123456"))).tokens.uid == uid)
        #expect(accounts.failures(uid: uid) == SignInFailures(), "the code proves the mailbox and clears the lock")
    }

    @Test func fiveWrongCodesLockCodeSignInButNotPasswordSignIn() throws {
        let uid = try account("ada@example.com", password: "ada password")
        codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        for guess in 1...5 { _ = try step.handle(request(.email, "ada@example.com", "00000\(guess)")) }
        #expect(accounts.failures(uid: uid, of: .code).lockedUntil == clock.now.addingTimeInterval(60))
        codes.issue("654321", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        #expect(refusal(try step.handle(request(.email, "ada@example.com", "654321")))?.reason == .invalidCredentials)
        #expect(codes.record("ada@example.com", .login)?.usedBy == nil, "a locked account's code is not even checked")
        #expect(accounts.failures(uid: uid) == SignInFailures(), "wrong codes do not count as wrong passwords")
        _ = try opened(try step.handle(request(.password, "ada@example.com", "ada password")))
        #expect(accounts.failures(uid: uid, of: .code) == SignInFailures(), "a password sign-in clears the code count")
    }

    /// NIST SP 800-63B: at most 100 consecutive failures, whatever the pace and however many codes are sent.
    @Test func noAccountSeesMoreThanAHundredConsecutiveWrongCodes() throws {
        let uid = try account("ada@example.com", password: "ada password")
        var checked = 0
        for guess in 100_000..<100_200 {
            // Each guess on a fresh code, as soon as the lock allows.
            if let until = accounts.failures(uid: uid, of: .code).lockedUntil, until > clock.now, until < .distantFuture {
                clock.advance(by: until.timeIntervalSince(clock.now))
            }
            codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
            _ = try step.handle(request(.email, "ada@example.com", String(guess)))
            checked += codes.record("ada@example.com", .login)?.attempts ?? 0
        }
        #expect(checked == 100, "200 guesses offered")
        #expect(accounts.failures(uid: uid, of: .code).consecutive == 100)
        codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        clock.advance(by: 30 * 86400)
        #expect(refusal(try step.handle(request(.email, "ada@example.com", "123456")))?.reason == .invalidCredentials,
                "locked until a success on the password path")
        codes.issue("123456", to: "ada@example.com", .login, secrets: secrets, at: clock.now)
        _ = try opened(try step.handle(request(.password, "ada@example.com", "ada password")))
        _ = try opened(try step.handle(request(.email, "ada@example.com", "123456")))
    }
}
