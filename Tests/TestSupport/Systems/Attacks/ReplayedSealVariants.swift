import Domain
import Foundation
import Testing

/// Attack 2 of issue 12 as a table (`AttackVariantTests`): each sealed field a victim's requests put on the
/// public request topics, copied into each field of each request type that takes a seal, with every other
/// field of that request valid, is refused `invalid_credentials`; the victim is unchanged, still signs in, and
/// the audit is clean. (Run with `manyCodes`.)
extension Attacks {
    /// The worker arguments of an attack that asks for many codes of one mailbox.
    static let manyCodes = ["code-dispatch-worker": ["--code-cooldown", "0", "--code-hourly-limit", "100"]]

    /// A field of a request type that carries a seal.
    enum SealSlot: String, CaseIterable {
        case registrationPassword, passwordSignIn, codeSignIn, changeReauthentication, changeNewPassword, resetCode,
             resetNewPassword, emailChangePassword, emailChangeCode, profileAccessToken
    }

    static func everySealCopiedIntoEverySealedFieldIsRefused(on system: some TestSystem) async throws {
        var victim = try await system.victim()
        let registration = try await registration(of: victim, in: system)
        let passwordSignIn = try await victimsSignIn(.password, secret: victim.password, victim, system)
        let codeSignIn = try await victimsSignIn(.email, secret: try await system.code(for: victim.email, .login), victim, system)
        // The victim changes the password: both seals of the change are on account.requests.
        let changeId = UUID().uuidString
        let newPassword = "victim's new password"
        let change = PasswordChangeRequested(
            requestId: changeId, email: victim.email, sealedPassword: victimSeal(victim.password, .reauthentication, changeId, victim, system),
            sealedNewPassword: victimSeal(newPassword, .newPassword, changeId, victim, system), replyKey: system.client.replyKey(for: changeId))
        guard case .accountChangeCompleted = try await system.send(.passwordChangeRequested(change)) else {
            throw HarnessError("the victim's own password change failed")
        }
        victim.password = newPassword
        let copied = [("registration", registration.sealedPassword), ("passwordSignIn", passwordSignIn.sealedCredential),
                      ("codeSignIn", codeSignIn.sealedCredential), ("changeReauthentication", change.sealedPassword),
                      ("changeNewPassword", change.sealedNewPassword)]
        for (source, seal) in copied {
            for slot in SealSlot.allCases {
                let request = try await copy(seal, into: slot, against: victim, system)
                let outcome = try await system.send(request)
                let refusal: ReasonCode? = if case .registrationFailed(let failed) = outcome { failed.reason } else { reason(outcome) }
                #expect(refusal == .invalidCredentials, "\(source) copied into \(slot): \(outcome)")
            }
        }
        #expect(try system.backends.accounts().account(email: "attacker@example.com") == nil)
        try await system.expectUnchanged(victim)
        #expect(try system.audit().isEmpty)
    }

    /// A request of `slot`'s type against the victim, from the attacker (the attacker's reply key), with `copied`
    /// in `slot` and every other field valid: a seal the attacker made of what the field needs (the victim's
    /// current password, a code the victim's or the attacker's mailbox received, a new password).
    static func copy(_ copied: String, into slot: SealSlot, against victim: Victim, _ system: some TestSystem) async throws -> Event {
        let id = UUID().uuidString
        func sealed(_ secret: String, _ purpose: SealedSecret.Purpose) -> String {
            attackerSeal(secret, purpose, requestId: id, email: victim.email, in: system)
        }
        let attackersPassword = "attacker's password"
        switch slot {
        case .registrationPassword:
            var request = try await system.request(id: id, email: "attacker-\(id.prefix(8).lowercased())@example.com")
            request.sealedPassword = copied
            request.replyKey = attackerKey
            return .registrationRequested(request)
        case .profileAccessToken:
            return .profileRequested(BearerRequest(requestId: id, sealedAccessToken: copied, replyKey: attackerKey))
        case .passwordSignIn, .codeSignIn:
            return .tokenRequested(TokenRequested(requestId: id, grantType: slot == .passwordSignIn ? .password : .email, email: victim.email,
                                                  sealedCredential: copied, replyKey: attackerKey))
        case .changeReauthentication, .changeNewPassword:
            let reauthentication = slot == .changeReauthentication ? copied : sealed(victim.password, .reauthentication)
            let newPassword = slot == .changeNewPassword ? copied : sealed(attackersPassword, .newPassword)
            return .passwordChangeRequested(PasswordChangeRequested(requestId: id, email: victim.email, sealedPassword: reauthentication,
                                                                    sealedNewPassword: newPassword, replyKey: attackerKey))
        case .resetCode, .resetNewPassword:
            let code = slot == .resetCode ? copied : sealed(try await system.code(for: victim.email, .resetPassword), .code)
            let newPassword = slot == .resetNewPassword ? copied : sealed(attackersPassword, .newPassword)
            return .passwordResetRequested(PasswordResetRequested(requestId: id, email: victim.email, sealedCode: code,
                                                                  sealedNewPassword: newPassword, replyKey: attackerKey))
        case .emailChangePassword, .emailChangeCode:
            let reauthentication = slot == .emailChangePassword ? copied : sealed(victim.password, .reauthentication)
            let code = slot == .emailChangeCode ? copied : sealed(try await system.code(for: "attacker@example.com", .changeEmail), .code)
            return .emailChangeRequested(EmailChangeRequested(requestId: id, email: victim.email, sealedPassword: reauthentication,
                                                              newEmail: "attacker@example.com", sealedCode: code, replyKey: attackerKey))
        }
    }

    /// The victim's own sign-in, as published on `auth.requests`.
    static func victimsSignIn(_ grant: GrantType, secret: String, _ victim: Victim, _ system: some TestSystem) async throws -> TokenRequested {
        let id = UUID().uuidString
        guard case .tokenIssued = try await system.signIn(grant, email: victim.email, secret: secret, id: id).0,
              case .tokenRequested(let request) = try await system.published(on: Topic.authRequests, key: id) else {
            throw HarnessError("the victim's \(grant) sign-in failed")
        }
        return request
    }

    /// `secret` sealed by the victim's own client for request `id`.
    static func victimSeal(_ secret: String, _ purpose: SealedSecret.Purpose, _ id: String, _ victim: Victim, _ system: some TestSystem) -> String {
        system.publicKey.sealedBase64(secret, for: purpose, in: SealContext(requestId: id, email: victim.email, replyKey: system.client.replyKey(for: id)))
    }
}
