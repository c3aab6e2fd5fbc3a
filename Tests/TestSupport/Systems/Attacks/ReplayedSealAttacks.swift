import Crypto
import Domain
import Foundation
import RegistrarClient
import SignIn
import Testing

/// Attack 2 of issue 12 (replayed seals) and its variants (`ReplayedSealTests`, `AdversarialTests`): a sealed
/// secret copied from a victim's request into any other message (another purpose, request id, email or reply
/// key) and a stale seal are refused with `invalid_credentials`, and a reused request id gets only its first
/// answer; the victim's account, password, profile and session are unchanged and the victim still signs in.
/// (Other seals under a used request id are refused by the seal ledger: `SealOpenerTests`, `SealLedgerBehaviourTests`.)
extension Attacks {
    /// The attacker's own reply key pair, and its public key.
    static let attackerKeys = SealingKeyPair.generate()
    static let attackerKey = attackerKeys.publicKey.base64

    /// The victim's registration as published on `registration.requests`, where any client can read it.
    static func registration(of victim: Victim, in system: some TestSystem) async throws -> RegistrationRequested {
        guard case .registrationRequested(let request) = try await system.published(on: Topic.registrationRequests, key: victim.registrationId) else {
            throw HarnessError("no registration request for \(victim.registrationId)")
        }
        return request
    }

    /// `secret` sealed by the attacker, properly, for a message of the attacker's making.
    static func attackerSeal(_ secret: String, _ purpose: SealedSecret.Purpose, requestId: String, email: String,
                             in system: some TestSystem) -> String {
        system.publicKey.sealedBase64(secret, for: purpose, in: SealContext(requestId: requestId, email: email, replyKey: attackerKey))
    }

    /// The victim's session still refreshes: nothing revoked it.
    static func expectSessionAlive(_ session: TokenPair?, in system: some TestSystem) async throws {
        guard case .tokenIssued = try await system.signIn(.refreshToken, email: nil, secret: try #require(session).refreshToken).0 else {
            Issue.record("the victim's session was revoked")
            return
        }
    }

    /// A victim's registration `sealedPassword` in a password-grant `TokenRequested`: with the attacker's reply
    /// key, under a new request id or the registration's own id, and even with the victim's own reply key.
    static func aRegistrationPasswordCopiedIntoASignInIsRefused(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        let registration = try await registration(of: victim, in: system)
        let copies = [
            TokenRequested(requestId: UUID().uuidString, grantType: .password, email: victim.email,
                           sealedCredential: registration.sealedPassword, replyKey: attackerKey),
            TokenRequested(requestId: victim.registrationId, grantType: .password, email: victim.email,
                           sealedCredential: registration.sealedPassword, replyKey: attackerKey),
            TokenRequested(requestId: victim.registrationId, grantType: .password, email: victim.email,
                           sealedCredential: registration.sealedPassword, replyKey: registration.replyKey),
        ]
        for copy in copies {
            let outcome = try await system.send(.tokenRequested(copy))
            #expect(reason(outcome) == .invalidCredentials, "\(copy.requestId): \(outcome)")
        }
        try await system.expectUnchanged(victim)
    }

    /// A victim's sign-in `sealedCredential` in another sign-in (another request id, another email) and as
    /// the re-authentication of a `PasswordChangeRequested` whose new password the attacker sealed.
    static func aSignInCredentialCopiedIntoAnotherSignInOrAPasswordChangeIsRefused(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        let signInId = UUID().uuidString
        let (signedIn, session) = try await system.signIn(.password, email: victim.email, secret: victim.password, id: signInId)
        guard case .tokenIssued = signedIn, case .tokenRequested(let signIn) = try await system.published(on: Topic.authRequests, key: signInId) else {
            Issue.record("the victim's sign-in failed: \(signedIn)")
            return
        }
        let otherSignIns = [
            TokenRequested(requestId: UUID().uuidString, grantType: .password, email: victim.email,
                           sealedCredential: signIn.sealedCredential, replyKey: attackerKey),
            TokenRequested(requestId: UUID().uuidString, grantType: .password, email: victim.email,
                           sealedCredential: signIn.sealedCredential, replyKey: signIn.replyKey),
            TokenRequested(requestId: UUID().uuidString, grantType: .password, email: victim.email.uppercased() + " ",
                           sealedCredential: signIn.sealedCredential, replyKey: attackerKey),
        ]
        for copy in otherSignIns {
            let outcome = try await system.send(.tokenRequested(copy))
            #expect(reason(outcome) == .invalidCredentials, "\(outcome)")
        }
        let changeId = UUID().uuidString
        let change = PasswordChangeRequested(
            requestId: changeId, email: victim.email, sealedPassword: signIn.sealedCredential,
            sealedNewPassword: attackerSeal("attacker's password", .newPassword, requestId: changeId, email: victim.email, in: system),
            replyKey: attackerKey)
        #expect(reason(try await system.send(.passwordChangeRequested(change))) == .invalidCredentials)
        #expect(reason(try await system.signIn(.password, email: victim.email, secret: "attacker's password").0) == .invalidCredentials)
        try await expectSessionAlive(session, in: system)
        try await system.expectUnchanged(victim)
    }

    /// A victim's registration `sealedPassword` (and sign-in credential) as the re-authentication of an
    /// `EmailChangeRequested` to the attacker's mailbox, with a `change_email` code the attacker received.
    /// (Run with `noCodeCooldown`.)
    static func aCopiedPasswordInAnEmailChangeIsRefused(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        let registration = try await registration(of: victim, in: system)
        let signInId = UUID().uuidString
        let (_, session) = try await system.signIn(.password, email: victim.email, secret: victim.password, id: signInId)
        guard case .tokenRequested(let signIn) = try await system.published(on: Topic.authRequests, key: signInId) else {
            throw HarnessError("no sign-in request \(signInId)")
        }
        let attackerEmail = Attacks.unique("attacker") + "@example.com"
        for copied in [registration.sealedPassword, signIn.sealedCredential] {
            let code = try await system.code(for: attackerEmail, .changeEmail)
            let id = UUID().uuidString
            let change = EmailChangeRequested(
                requestId: id, email: victim.email, sealedPassword: copied, newEmail: attackerEmail,
                sealedCode: attackerSeal(code, .code, requestId: id, email: victim.email, in: system), replyKey: attackerKey)
            #expect(reason(try await system.send(.emailChangeRequested(change))) == .invalidCredentials)
        }
        #expect(try system.backends.accounts().account(email: attackerEmail) == nil)
        try await expectSessionAlive(session, in: system)
        try await system.expectUnchanged(victim)
    }

    /// The victim's own client sealing too long ago is refused. The victim's sign-in request id reused with a
    /// credential the attacker sealed properly for it and the attacker's reply key gets only the first answer
    /// again, sealed to the victim's reply key.
    static func aStaleSealOrAReusedRequestIdGivesTheAttackerNothing(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        let staleId = UUID().uuidString
        let stale = system.publicKey.sealedBase64(
            victim.password, for: .signInPassword,
            in: SealContext(requestId: staleId, email: victim.email, replyKey: system.client.replyKey(for: staleId)), at: Date().addingTimeInterval(-600))
        let outcome = try await system.send(.tokenRequested(TokenRequested(
            requestId: staleId, grantType: .password, email: victim.email, sealedCredential: stale, replyKey: system.client.replyKey(for: staleId))))
        #expect(reason(outcome) == .invalidCredentials)

        let signInId = UUID().uuidString
        guard case .tokenIssued(let issued) = try await system.signIn(.password, email: victim.email, secret: victim.password, id: signInId).0 else {
            Issue.record("the victim cannot sign in")
            return
        }
        let guess = attackerSeal("a guess", .signInPassword, requestId: signInId, email: victim.email, in: system)
        let reused = try await system.send(.tokenRequested(TokenRequested(
            requestId: signInId, grantType: .password, email: victim.email, sealedCredential: guess, replyKey: attackerKey)))
        #expect(reused == .tokenIssued(issued), "the first answer again")
        #expect((try? attackerKeys.open(Array(Data(base64Encoded: issued.sealedTokens) ?? Data()))) == nil)
        try await system.expectUnchanged(victim)
    }
}
