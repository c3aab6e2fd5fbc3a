import Crypto
import CryptoAdapters
import Domain
import Foundation
import SignIn
@testable import TestSupport
import Testing

/// `GET /me`'s request through the real workers in process: the profile of the uid a verified access token names,
/// sealed to the requester; the login guard; every token that does not verify refused alike, and nothing changed.
@Suite(.tags(.inProcess)) struct ProfileReadTests {
    @Test func aVerifiedTokenReadsItsOwnCompleteProfileSealed() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("reader@example.com", password: "reader password by the quiet river")
            let tokens = try #require(try await system.signIn(.password, email: "reader@example.com", secret: "reader password by the quiet river").1)
            let (outcome, view) = try await system.client.profile(accessToken: tokens.accessToken, timeout: .seconds(60))
            guard case .profileAnswered(let answered) = outcome else { Issue.record("not answered: \(outcome)"); return }
            #expect(view == ProfileView(requestId: answered.requestId, uid: uid, profile: try #require(try system.backends.profiles().profile(uid: uid))))
            #expect(view?.email == "reader@example.com")
            // The outcome on the topic carries nothing readable without the reply key.
            let wire = String(decoding: EventCodec.encode(outcome), as: UTF8.self)
            #expect(!wire.contains("reader@example.com") && !wire.contains(uid) && !answered.sealedProfile.isEmpty)
        }
    }

    @Test func anIncompleteProfileIsRefusedByTheGuard() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("half@example.com", password: "half password by the quiet river")
            let tokens = try #require(try await system.signIn(.password, email: "half@example.com", secret: "half password by the quiet river").1)
            try await system.blankProfileImage(of: uid)
            let before = try system.backends.profiles().profile(uid: uid)
            let (outcome, view) = try await system.client.profile(accessToken: tokens.accessToken, timeout: .seconds(60))
            #expect(reason(outcome) == .profileIncomplete && view == nil)
            #expect(try system.backends.profiles().profile(uid: uid) == before)
        }
    }

    /// Expired, wrong audience, wrong issuer, unknown `kid`, forged signature, malformed, and a token sealed for
    /// another request: each `invalid_credentials`, no profile, the stores as they were.
    @Test func everyTokenThatDoesNotVerifyIsRefusedAlike() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("victim@example.com", password: "victim password by the quiet river")
            let genuine = try #require(try await system.signIn(.password, email: "victim@example.com", secret: "victim password by the quiet river").1)
            let key = try SigningKeyPair.load(from: system.directory + "/keys/" + "access-tokens.ed25519")
            let now = system.now
            func minted(_ key: SigningKeyPair, _ audience: TokenAudience = TokenAudience(), issued: Date, expires: Date) throws -> String {
                try EdDSATokenMinter(key: key, audience: audience).accessToken(subject: uid, id: "forged", session: nil, issuedAt: issued, expiresAt: expires)
            }
            let fresh = (issued: now.addingTimeInterval(-10), expires: now.addingTimeInterval(600))
            let parts = genuine.accessToken.split(separator: ".")
            let otherSubject = Base64URL.encode(Array(#"{"aud":"registrar-api","exp":4102444800,"iat":0,"iss":"registrar","jti":"x","sub":"someone-else"}"#.utf8))
            let bad = [
                "expired": try minted(key, issued: now.addingTimeInterval(-3600), expires: now.addingTimeInterval(-1800)),
                "wrong audience": try minted(key, TokenAudience(audience: "another-api"), issued: fresh.issued, expires: fresh.expires),
                "wrong issuer": try minted(key, TokenAudience(issuer: "someone-else"), issued: fresh.issued, expires: fresh.expires),
                "unknown kid": try minted(.generate(), issued: fresh.issued, expires: fresh.expires),
                "claims swapped under the signature": "\(parts[0]).\(otherSubject).\(parts[2])",
                "malformed": "not-a-jwt",
            ]
            let counts = try system.counts()
            for (name, token) in bad {
                let (outcome, view) = try await system.client.profile(accessToken: token, timeout: .seconds(60))
                #expect(reason(outcome) == .invalidCredentials, "\(name): \(outcome)")
                #expect(view == nil, "\(name)")
            }
            // The genuine token's seal copied into another request (another id, another reply key) is refused.
            let sealed = system.client.seal(genuine.accessToken, for: .accessToken, requestId: "me-1", email: nil)
            let copied = BearerRequest(requestId: "me-2", sealedAccessToken: sealed, replyKey: system.client.replyKey(for: "me-2"))
            #expect(reason(try await system.send(.profileRequested(copied))) == .invalidCredentials)
            #expect(try system.counts() == counts)
            #expect(try system.audit().isEmpty)
        }
    }
}
