import Crypto
import Domain
import EventTransport
import Foundation
import Kafka
import RegistrarClient
import SignIn
@testable import TestSupport
import Testing

/// The operator's account tools through the real workers in process: each action over `operator.requests`, signed by
/// the operator role's key, answered with the account as it stands and announced on `account.events` with its actor;
/// a disabled account neither signs in (password, code, refresh) nor reads its profile with an old access token; and
/// requests that are unsigned, signed by a user's key or by another role's, or replayed, change nothing.
@Suite(.tags(.inProcess)) struct OperatorTests {
    @Test func findUnlockDisableEnableAndTheirAnnouncements() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("ops@example.com", password: "ops quartz lantern 42")
            let old = try #require(try await system.signIn(.password, email: "ops@example.com", secret: "ops quartz lantern 42").1)
            for _ in 0..<5 { _ = try await system.signIn(.password, email: "ops@example.com", secret: "wrong password") }

            let found = try await system.operate(.find, "OPS@example.com")
            #expect(found.uid == uid && found.email == "ops@example.com" && found.state == "active" && found.verified && found.hasPassword)
            #expect(found.passwordLockedUntil != nil && found.codeLockedUntil == nil && found.sessions.count == 1)
            let unlocked = try await system.operate(.unlock, "ops@example.com")
            #expect(unlocked.passwordLockedUntil == nil)
            #expect(try await system.signIn(.password, email: "ops@example.com", secret: "ops quartz lantern 42").1 != nil)

            let disabled = try await system.operate(.disable, "ops@example.com")
            #expect(disabled.state == "disabled" && disabled.sessions.isEmpty)
            // The old access and refresh tokens stop at once, and learn nothing; the password and a login code are told the
            // account is disabled.
            #expect(reason(try await system.send(.profileRequested(system.client.profileRequest(accessToken: old.accessToken)))) == .invalidCredentials)
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: old.refreshToken).0) == .invalidCredentials)
            #expect(reason(try await system.signIn(.password, email: "ops@example.com", secret: "ops quartz lantern 42").0) == .accountDisabled)
            #expect(reason(try await system.signIn(.password, email: "ops@example.com", secret: "wrong password").0) == .invalidCredentials,
                    "nobody without the password learns the account is disabled")
            let code = try await system.code(for: "ops@example.com", .login)
            #expect(reason(try await system.signIn(.email, email: "ops@example.com", secret: code).0) == .accountDisabled)
            let change = system.client.passwordChange(email: "ops@example.com", password: "ops quartz lantern 42",
                                                      newPassword: "ops new quartz lantern 42")
            #expect(reason(try await system.send(.passwordChangeRequested(change))) == .accountDisabled)
            #expect(try await system.operate(.disable, "ops@example.com").state == "disabled", "disabling again changes nothing")

            #expect(try await system.operate(.enable, "ops@example.com").state == "active")
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: old.refreshToken).0) == .invalidCredentials,
                    "enabling brings back no session")
            #expect(try await system.signIn(.password, email: "ops@example.com", secret: "ops quartz lantern 42").1 != nil)

            let events = try await system.accountEvents(of: uid, count: 6).filter { $0.actor != nil }
            #expect(Set(events.map(\.type)) == [.accountInspected, .accountUnlocked, .accountDisabled, .accountEnabled])
            #expect(events.count == 4 && events.allSatisfy { $0.actor == "operator:ada" })
            #expect(try await system.operateRefusal(.find, "nobody@example.com") == .accountUnknown)
            let addressed = system.client.operatorRequest(.find, email: "ops@example.com", actor: "ada@example.com")
            #expect(reason(try await system.client.operate(addressed, signer: system.operatorSigner(), timeout: .seconds(60)).0) == .actorInvalid,
                    "an actor is a name, never an address")
        }
    }

    /// Guessing a disabled account's password is counted and locked like an active account's: once locked, even the
    /// right password (by sign-in or by a change) is refused as invalid, so the answer reveals nothing.
    @Test func guessesAtADisabledAccountLockItLikeAnActiveOne() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("guessed@example.com", password: "guessed quartz lantern 42")
            _ = try await system.operate(.disable, "guessed@example.com")
            let store = try #require(try system.backends.accounts() as? any CredentialStore)
            for attempt in 1...5 {
                #expect(reason(try await system.signIn(.password, email: "guessed@example.com", secret: "guess \(attempt)").0) == .invalidCredentials)
                #expect(try store.updateFailures(uid: uid, of: .password) { $0.consecutive } == attempt, "every guess is counted")
            }
            #expect(try await system.operate(.find, "guessed@example.com").passwordLockedUntil != nil)
            #expect(reason(try await system.signIn(.password, email: "guessed@example.com", secret: "guessed quartz lantern 42").0)
                    == .invalidCredentials, "locked: the right password learns nothing")
            let change = system.client.passwordChange(email: "guessed@example.com", password: "guessed quartz lantern 42",
                                                      newPassword: "guessed new quartz lantern 42")
            #expect(reason(try await system.send(.passwordChangeRequested(change))) == .invalidCredentials)
            #expect(try store.updateFailures(uid: uid, of: .password) { $0.consecutive } == 5, "a locked account counts nothing more")
            #expect(try system.backends.accounts().account(uid: uid)?.status == .disabled)
        }
    }

    @Test func aForcedResetDropsThePasswordAndEndsEverySession() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("reset@example.com", password: "reset quartz lantern 42")
            let tokens = try #require(try await system.signIn(.password, email: "reset@example.com", secret: "reset quartz lantern 42").1)
            let report = try await system.operate(.resetPassword, "reset@example.com")
            #expect(!report.hasPassword && report.sessions.isEmpty && report.state == "active")
            #expect(reason(try await system.signIn(.password, email: "reset@example.com", secret: "reset quartz lantern 42").0) == .invalidCredentials)
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: tokens.refreshToken).0) == .invalidCredentials)
            #expect(reason(try await system.send(.profileRequested(system.client.profileRequest(accessToken: tokens.accessToken)))) == .invalidCredentials)
            // The owner sets a new password with a reset code.
            let code = try await system.code(for: "reset@example.com", .resetPassword)
            let reset = system.client.passwordReset(email: "reset@example.com", code: code, newPassword: "reset new quartz lantern 42")
            guard case .accountChangeCompleted = try await system.send(.passwordResetRequested(reset)) else { Issue.record("no reset"); return }
            #expect(try await system.signIn(.password, email: "reset@example.com", secret: "reset new quartz lantern 42").1 != nil)
            let forced = try await system.accountEvents(of: uid, count: 4).filter { $0.type == .passwordResetForced }
            #expect(forced.count == 1 && forced[0].actor == "operator:ada" && forced[0].changed == [.password])
        }
    }

    @Test func anOperatorDeletesADisabledAccountThroughTheSaga() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("leaver@example.com", password: "leaver quartz lantern 42")
            _ = try await system.operate(.disable, "leaver@example.com")
            let request = system.client.operatorRequest(.delete, email: "leaver@example.com", actor: "ada")
            let (outcome, report, deleted) = try await system.client.operateDeletion(request, signer: try system.operatorSigner(),
                                                                                       timeout: .seconds(90))
            guard case .operatorAnswered = outcome, let report else { Issue.record("not answered: \(outcome)"); return }
            #expect(report.state == "deleting" && deleted == true)
            #expect(try system.backends.accounts().account(uid: uid) == nil && system.backends.profiles().profile(uid: uid) == nil)
            #expect(try await system.operateRefusal(.find, "leaver@example.com") == .accountUnknown)
            let events = try await system.accountEvents(of: uid, count: 5)
            #expect(events.contains { $0.type == .accountDeletionOrdered && $0.actor == "operator:ada" })
            #expect(events.contains { $0.type == .accountDeleted })
            #expect(try system.email(kind: "notice", requestId: request.requestId).contains("leaver@example.com"))
        }
    }

    /// An operator request unsigned, signed by a key nobody trusts (a user's), or by another role's key is refused unread,
    /// and a replayed one is answered as before: the account stays as it was, and nothing more is announced.
    @Test func unsignedForgedOrReplayedRequestsChangeNothing() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("target@example.com", password: "target quartz lantern 42")
            let keys = EventKeyDirectory(system.keysDirectory)
            let signers = [nil, EventSigner(role: .operator, key: .generate()),
                           EventSigner(role: .account, key: try SigningKeyPair.load(from: keys.secretPath(of: .account)))]
            for signer in signers {
                let request = system.client.operatorRequest(.disable, email: "target@example.com", actor: "mallory")
                let event = Event.operatorRequested(request)
                let outcome = try await system.client.outcome(of: event, timeout: .seconds(60)) {
                    try await system.client.publish(OutgoingMessage(event, producer: "registrar-cli", signer: signer))
                }
                #expect(reason(outcome) == .requestInvalid, "\(signer?.role.rawValue ?? "unsigned")")
            }
            #expect(try system.backends.accounts().account(uid: uid)?.status == .active)
            #expect(try await system.signIn(.password, email: "target@example.com", secret: "target quartz lantern 42").1 != nil)

            let disable = system.client.operatorRequest(.disable, email: "target@example.com", actor: "ada")
            #expect(try await system.client.operate(disable, signer: try system.operatorSigner(), timeout: .seconds(60)).1?.state == "disabled")
            #expect(try await system.operate(.enable, "target@example.com").state == "active")
            let (replayed, report) = try await system.client.operate(disable, signer: try system.operatorSigner(), timeout: .seconds(60))
            guard case .operatorAnswered = replayed else { Issue.record("replay not answered: \(replayed)"); return }
            #expect(report?.state == "disabled", "the first answer, given again")
            #expect(try system.backends.accounts().account(uid: uid)?.status == .active, "the replay disabled nothing")
            let announced = try await system.accountEvents(of: uid, count: 4).filter { $0.actor != nil }
            #expect(announced.map(\.type).sorted { $0.rawValue < $1.rawValue } == [.accountDisabled, .accountEnabled])
            #expect(!announced.contains { $0.actor == "operator:mallory" })
        }
    }
}

/// A captured operator request, correctly signed, replayed once its answer is forgotten (issued long before), or issued
/// by a clock far ahead, is refused and changes nothing.
@Suite(.tags(.inProcess)) struct StaleOperatorRequestTests {
    @Test func aSignedRequestIssuedLongAgoOrAheadChangesNothing() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("stale@example.com", password: "stale quartz lantern 42")
            for issuedAt in [Date().addingTimeInterval(-OperatorRequested.maximumAge - 60), Date().addingTimeInterval(OperatorRequested.maximumLead + 60)] {
                let request = system.client.operatorRequest(.disable, email: "stale@example.com", actor: "ada", issuedAt: issuedAt)
                let (outcome, report) = try await system.client.operate(request, signer: try system.operatorSigner(), timeout: .seconds(60))
                #expect(reason(outcome) == .requestInvalid && report == nil, "issued at \(issuedAt)")
            }
            #expect(try system.backends.accounts().account(uid: uid)?.status == .active, "nothing was disabled")
            #expect(try await system.signIn(.password, email: "stale@example.com", secret: "stale quartz lantern 42").1 != nil)
            #expect(try await system.operate(.find, "stale@example.com").state == "active", "a fresh request is taken")
            let announced = try await system.accountEvents(of: uid, count: 3).filter { $0.actor != nil }
            #expect(announced.map(\.type) == [.accountInspected], "only the fresh find was announced")
        }
    }
}

extension InProcessSystem {
    /// The operator role's signer, from the system's key directory.
    func operatorSigner() throws -> EventSigner {
        EventSigner(role: .operator, key: try SigningKeyPair.load(from: EventKeyDirectory(keysDirectory).secretPath(of: .operator)))
    }

    /// The report of `action` on the account of `email`, by the operator `ada`; the test fails on a refusal.
    func operate(_ action: OperatorAction, _ email: String) async throws -> AccountReport {
        let (outcome, report) = try await client.operate(client.operatorRequest(action, email: email, actor: "ada"), signer: operatorSigner(),
                                                         timeout: .seconds(60))
        guard let report else { throw HarnessError("\(action.rawValue) of \(email) not answered: \(outcome)") }
        return report
    }

    /// The reason `action` on the account of `email` is refused for; nil when answered.
    func operateRefusal(_ action: OperatorAction, _ email: String) async throws -> ReasonCode? {
        reason(try await client.operate(client.operatorRequest(action, email: email, actor: "ada"), signer: operatorSigner(),
                                        timeout: .seconds(60)).0)
    }
}
