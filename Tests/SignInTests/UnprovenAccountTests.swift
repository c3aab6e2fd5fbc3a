import Domain
import Foundation
import Registration
import SignIn
@testable import TestSupport
import Testing
import Verification

/// Accounts made before registrations needed a code (issue 22's migration): their mailbox is unproven until its first
/// proof, and whoever registered the address before its owner keeps nothing once the owner proves it.
extension SignInStepTests {
    /// An unproven active account of `email` whose (someone's) password is `password`, with a complete profile; its uid.
    func unprovenAccount(_ email: String, password: String) throws -> String {
        let uid = "uid-" + email
        accounts.addActiveAccount(uid: uid, email: email, passwordHash: "hash:" + password, at: clock.now, verified: false)
        try profiles.write(Profile(name: "Pre", email: email, profileImage: "memory://i.jpg", isMapLocationEnabled: false), uid: uid, revision: 2)
        return uid
    }

    /// A password grant carrying `code` beside the password.
    func request(password: String, code: String, _ email: String, id: String = UUID().uuidString) -> Event {
        let context = SealContext(requestId: id, email: email, replyKey: replyKey)
        return .tokenRequested(TokenRequested(requestId: id, grantType: .password, email: email,
                                              sealedCredential: FakeVault.sealed(password, .signInPassword, context, at: clock.now),
                                              sealedCode: FakeVault.sealed(code, .code, context, at: clock.now), replyKey: replyKey))
    }

    @Test func theRightPasswordOfAnUnprovenAccountAsksForALoginCodeOnce() throws {
        let uid = try unprovenAccount("old@example.com", password: "old password")
        #expect(refusal(try step.handle(request(.password, "old@example.com", "wrong password")))?.reason == .invalidCredentials)
        #expect(refusal(try step.handle(request(.password, "old@example.com", "old password")))?.reason == .emailUnverified)
        try codes.issue("123456", to: "old@example.com", .register, secrets: secrets, at: clock.now)
        #expect(refusal(try step.handle(request(password: "old password", code: "123456", "old@example.com")))?.reason == .invalidCredentials,
                "a register code is no login code")
        try codes.issue("654321", to: "old@example.com", .login, secrets: secrets, at: clock.now)
        let before = tokens.tokens.count
        _ = try opened(try step.handle(request(password: "old password", code: "654321", "old@example.com")))
        let account = try #require(try accounts.account(uid: uid))
        #expect(account.isVerified && account.passwordHash == "hash:old password" && account.notBefore != nil)
        #expect(tokens.tokens.count == before + 1)
        _ = try opened(try step.handle(request(.password, "old@example.com", "old password")))
        try step.notify(request(password: "old password", code: "654321", "old@example.com"))
        #expect(mailer.messages.isEmpty, "the password stays: nothing to tell")
    }

    /// Attack 1 of issue 22, the migration: the owner's first proof through a code sign-in drops the password someone
    /// set before (the pre-hijacker's), ends every session and mails the owner a notice.
    @Test func aFirstProofByCodeDropsThePasswordAndEndsEverySession() throws {
        let uid = try unprovenAccount("victim@example.com", password: "attacker password")
        // A session the pre-hijacker opened before registrations needed a code.
        let hijacker = try opened([try step.issuer.signIn(account: try #require(try accounts.account(uid: uid)), requestId: "hijacker",
                                                          replyKey: replyKey, clientId: nil, accountCreated: false, at: clock.now)]).tokens
        clock.advance(by: 1)
        try codes.issue("123456", to: "victim@example.com", .login, secrets: secrets, at: clock.now)
        let signIn = request(.email, "victim@example.com", "123456", id: "owner-1")
        let owner = try opened(try step.handle(signIn)).tokens
        #expect(owner.uid == uid)
        let account = try #require(try accounts.account(uid: uid))
        #expect(account.passwordHash.isEmpty && account.verifiedBy == "owner-1" && account.notBefore != nil)
        #expect(refusal(try step.handle(request(.password, "victim@example.com", "attacker password")))?.reason == .invalidCredentials)
        #expect(refusal(try step.handle(request(.refreshToken, nil, hijacker.refreshToken)))?.reason == .invalidCredentials)
        #expect(tokens.tokens.filter { $0.uid == uid && !$0.familyRevoked }.count == 1, "only the owner's session lives")
        try step.notify(signIn)
        try step.notify(signIn)
        #expect(mailer.messages.map(\.to) == ["victim@example.com", "victim@example.com"])
        #expect(Set(mailer.messages.map(\.messageId)).count == 1, "one notice, sent again as the same message")
        #expect(mailer.messages[0].text.contains("no longer works"))
    }
}
