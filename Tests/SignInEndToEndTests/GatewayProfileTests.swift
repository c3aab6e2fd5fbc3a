import Crypto
import CryptoAdapters
import Foundation
@testable import TestSupport
import Testing

/// `GET /me` through `registrar gateway` with curl: the profile of a complete account; `403` for an incomplete
/// one; `401` with the RFC 6750 challenge for a missing, malformed, expired, wrong-audience or unknown-`kid`
/// token, and nothing changed (no store record, no token in clear on a topic).
@Suite(.tags(.live), .serialized) struct GatewayProfileTests {
    static func me(_ gateway: GatewayProcess, _ token: String?) async throws -> CurlRun {
        try await gateway.curl("/me", token.map { ["-H", "Authorization: Bearer \($0)"] } ?? [])
    }

    @Test func theProfileOfACompleteAccountThenTheGuard() async throws {
        try await LiveSystem.shared { system in
            let email = "me-\(UUID().uuidString.prefix(8))@example.com".lowercased()
            let uid = try await system.register(email, password: "my good passphrase")
            try await GatewayProcess.with(system) { gateway in
                let signedIn = try await GatewayAccountTests.signIn(gateway, email, "my good passphrase")
                let token = try #require(GatewayProcess.json(signedIn)["access_token"] as? String)
                let shown = try await Self.me(gateway, token)
                #expect(shown.status == 200, "\(shown.body)")
                let profile = GatewayProcess.json(shown)
                #expect(profile["uid"] as? String == uid && profile["email"] as? String == email)
                #expect(profile["name"] as? String == "Test User" && (profile["profileImage"] as? String)?.isEmpty == false)
                #expect(profile["isMapLocationEnabled"] as? Bool == false && shown.header("Cache-Control") == "no-store")

                try await system.blankProfileImage(of: uid)
                let guarded = try await Self.me(gateway, token)
                #expect(guarded.status == 403 && GatewayProcess.json(guarded)["error"] as? String == "profile_incomplete", "\(guarded.body)")
                // Neither the token nor the email crossed a topic in the clear.
                for message in try await system.allTopicMessages() {
                    let text = String(decoding: message.value, as: UTF8.self)
                    #expect(!text.contains(token), "the access token on \(message.topic)")
                    #expect(!(message.topic == "auth.outcomes" && text.contains(email)), "the email on auth.outcomes")
                }
                #expect(!gateway.logText.contains(token))
            }
        }
    }

    @Test func everyBadTokenIsAnsweredWithTheBearerChallengeAndChangesNothing() async throws {
        try await LiveSystem.shared { system in
            let email = "me-bad-\(UUID().uuidString.prefix(8))@example.com"
            let uid = try await system.register(email, password: "my good passphrase")
            let key = try SigningKeyPair.load(from: system.directory + "/keys/access-tokens.ed25519")
            let now = Date()
            func minted(_ key: SigningKeyPair, _ audience: TokenAudience = TokenAudience(), expires: Date = now.addingTimeInterval(600)) throws -> String {
                try EdDSATokenMinter(key: key, audience: audience).accessToken(subject: uid, id: "forged", session: nil, issuedAt: now.addingTimeInterval(-3600),
                                                                                expiresAt: expires)
            }
            let unverified: [(String, String)] = [
                ("expired", try minted(key, expires: now.addingTimeInterval(-60))),
                ("wrong audience", try minted(key, TokenAudience(audience: "another-api"))),
                ("unknown kid", try minted(.generate())),
                ("not a JWT", "not-a-jwt"),
            ]
            try await GatewayProcess.with(system) { gateway in
                let counts = try system.counts()
                let profile = try system.backends.profiles().profile(uid: uid)
                let published = try await system.flowMessages().count
                let missing = try await Self.me(gateway, nil)
                #expect(missing.status == 401 && missing.header("WWW-Authenticate") == #"Bearer realm="registrar""#, "\(missing.body)")
                for header in ["Basic dXNlcjpwYXNz", "Bearer", "Bearer two words", "Bearer bad\u{7F}char"] {
                    let malformed = try await gateway.curl("/me", ["-H", "Authorization: \(header)"])
                    #expect(malformed.status == 401, "\(header): \(malformed.body)")
                    #expect(malformed.header("WWW-Authenticate") == #"Bearer realm="registrar", error="invalid_token""#, "\(header)")
                }
                // Refused at the edge: nothing was published.
                #expect(try await system.flowMessages().count == published)
                for (name, token) in unverified {
                    let refused = try await Self.me(gateway, token)
                    #expect(refused.status == 401 && GatewayProcess.json(refused)["error"] as? String == "invalid_token", "\(name): \(refused.body)")
                    #expect(refused.header("WWW-Authenticate") == #"Bearer realm="registrar", error="invalid_token""#, "\(name)")
                    #expect(GatewayProcess.json(refused)["uid"] == nil && !refused.body.contains(email), "\(name)")
                }
                #expect(try system.counts() == counts)
                #expect(try system.backends.profiles().profile(uid: uid) == profile)
                for message in try await system.allTopicMessages() {
                    let text = String(decoding: message.value, as: UTF8.self)
                    #expect(!unverified.contains { text.contains($0.1) }, "a token on \(message.topic)")
                }
            }
        }
    }
}
