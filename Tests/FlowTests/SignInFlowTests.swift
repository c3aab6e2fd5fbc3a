import CryptoAdapters
import Domain
import Foundation
import SignIn
@testable import TestSupport
import Testing

/// Sign-in through the workers' stacks without Kafka: code sign-in registering a complete account, the profile guard,
/// access tokens verifiable with the published JWKS, refresh rotation with reuse detection, lockout.
@Suite(.tags(.kafkaFree)) struct SignInFlowTests {
    @Test func aCodeSignInRegistersACompleteAccountOnce() async throws {
        try await KafkaFreeSystem.with(extraArguments: ["code-dispatch-worker": ["--code-cooldown", "0"]]) { system in
            let code = try await system.code(for: "Fresh.Person@example.com", .register)
            let (outcome, tokens) = try await system.signIn(.email, email: "fresh.person@example.com", secret: code, id: "signup-1")
            guard case .tokenIssued(let issued) = outcome else { Issue.record("not signed in: \(outcome)"); return }
            #expect(issued.accountCreated)
            let uid = try #require(tokens).uid
            let account = try #require(try system.backends.accounts().account(email: "fresh.person@example.com"))
            #expect(account.uid == uid && account.status == .active)
            let profile = try #require(try system.backends.profiles().profile(uid: uid))
            #expect(profile.isComplete && profile.name == "fresh.person" && profile.email == "fresh.person@example.com")
            #expect(try system.audit().isEmpty)

            // The same code again is used up; a new login code signs the same account in, not creating another.
            #expect(reason(try await system.signIn(.email, email: "fresh.person@example.com", secret: code).0) == .invalidCredentials)
            let again = try await system.code(for: "fresh.person@example.com", .login)
            guard case (.tokenIssued(let second), let secondTokens?) = try await system.signIn(.email, email: "fresh.person@example.com", secret: again) else {
                Issue.record("second sign-in refused")
                return
            }
            #expect(secondTokens.uid == uid && !second.accountCreated)
            // A code-made account has no password.
            #expect(reason(try await system.signIn(.password, email: "fresh.person@example.com", secret: "").0) == .invalidCredentials)
        }
    }

    @Test func anIncompleteProfileCannotSignIn() async throws {
        try await KafkaFreeSystem.with { system in
            let uid = try await system.register("guarded@example.com", password: "guarded password by the quiet river")
            guard case .tokenIssued = try await system.signIn(.password, email: "guarded@example.com", secret: "guarded password by the quiet river").0 else {
                Issue.record("complete profile refused")
                return
            }
            try await system.blankProfileImage(of: uid)
            let (outcome, tokens) = try await system.signIn(.password, email: "guarded@example.com", secret: "guarded password by the quiet river")
            #expect(reason(outcome) == .profileIncomplete)
            #expect(tokens == nil)
        }
    }

    @Test func refreshTokensRotateAndAReusedOneRevokesTheFamily() async throws {
        try await KafkaFreeSystem.with { system in
            let uid = try await system.register("rotor@example.com", password: "rotor password by the quiet river")
            let (_, first) = try await system.signIn(.password, email: "rotor@example.com", secret: "rotor password by the quiet river")
            let initial = try #require(first)

            let verifier = try AccessTokenVerifier(jwksAt: system.directory + "/keys/jwks.json", audience: TokenAudience())
            let claims = try verifier.verify(initial.accessToken, now: system.now)
            #expect(claims.sub == uid && claims.exp.timeIntervalSince(claims.iat) == 900 && !claims.jti.isEmpty)
            #expect(claims.iss == "registrar" && claims.aud == "registrar-api")

            let (_, rotated) = try await system.signIn(.refreshToken, email: nil, secret: initial.refreshToken)
            let second = try #require(rotated)
            #expect(second.refreshToken != initial.refreshToken)
            // The rotated-away token comes back: refused, and the whole family with it.
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: initial.refreshToken).0) == .invalidCredentials)
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: second.refreshToken).0) == .invalidCredentials)
            // Other sign-ins are other families.
            let (_, other) = try await system.signIn(.password, email: "rotor@example.com", secret: "rotor password by the quiet river")
            guard case .tokenIssued = try await system.signIn(.refreshToken, email: nil, secret: try #require(other).refreshToken).0 else {
                Issue.record("a fresh family was refused")
                return
            }
        }
    }

    @Test func fiveFailuresLockTheAccountWithDoublingBackOff() async throws {
        try await KafkaFreeSystem.with(extraArguments: ["account-worker": ["--lockout-base", "3"]]) { system in
            _ = try await system.register("locked@example.com", password: "locked password by the quiet river")
            let lockouts = metricValue(#"registrar_lockouts_total{kind="password"}"#)
            var wrong: [Event] = []
            for attempt in 1...5 { wrong.append(try await system.signIn(.password, email: "locked@example.com", secret: "guess \(attempt)").0) }
            #expect(metricValue(#"registrar_lockouts_total{kind="password"}"#) >= lockouts + 1, "the lock is counted")
            let locked = try await system.signIn(.password, email: "locked@example.com", secret: "locked password by the quiet river").0
            // Exactly the answer of a wrong password.
            guard case .tokenRefused(let refusal) = locked, case .tokenRefused(let wrongRefusal) = wrong[4] else {
                Issue.record("the locked account signed in")
                return
            }
            #expect(refusal.reason == wrongRefusal.reason && refusal.message == wrongRefusal.message)

            system.clock.advance(by: 3) // the first lock's length
            #expect(reason(try await system.signIn(.password, email: "locked@example.com", secret: "guess 6").0) == .invalidCredentials)
            system.clock.advance(by: 3) // half the doubled lock: still locked
            #expect(reason(try await system.signIn(.password, email: "locked@example.com", secret: "locked password by the quiet river").0) == .invalidCredentials)
            system.clock.advance(by: 3.5) // past the doubled lock
            guard case .tokenIssued = try await system.signIn(.password, email: "locked@example.com", secret: "locked password by the quiet river").0 else {
                Issue.record("the account stayed locked past its back-off")
                return
            }
        }
    }
}
