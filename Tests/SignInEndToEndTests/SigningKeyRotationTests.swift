import Crypto
import CryptoAdapters
import Foundation
import Support
@testable import TestSupport
import Testing

/// `registrar keys rotate-signing` under a running account worker: the next tokens carry the new `kid`,
/// the earlier ones still verify through the JWKS, and an independent verifier (PyJWT) agrees.
@Suite(.tags(.live), .serialized) struct SigningKeyRotationTests {
    @Test func aRunningAccountWorkerSignsWithTheRotatedKeyWhileOldTokensStillVerify() async throws {
        try await LiveSystem.with { system in
            _ = try await system.register("rotation@example.com", password: "rotation password by the quiet river")
            let before = try await accessToken(system)
            let jwks = system.directory + "/keys/jwks.json"
            let oldKid = try #require(JSONWebToken.header(of: before).kid)
            // A verifier started before the rotation (as a gateway would be) picks up the rewritten JWKS.
            let verifier = try AccessTokenVerifier(jwksAt: jwks, audience: TokenAudience())
            #expect(try verifier.verify(before).iss == "registrar")

            let rotated = try await system.registrar(["keys", "rotate-signing"])
            #expect(rotated.status == 0, "\(rotated.output)")
            let after = try await accessToken(system)
            let newKid = try #require(JSONWebToken.header(of: after).kid)
            #expect(newKid != oldKid)
            #expect(rotated.output.contains("signing with \(newKid); \(oldKid) retired"))

            #expect(verifier.keys().entries.map(\.keyID) == [newKid, oldKid])
            #expect(try verifier.verify(before).sub == verifier.verify(after).sub)
            // Another audience or issuer is refused.
            #expect(throws: JSONWebTokenError.wrongAudience) {
                try AccessTokenVerifier(keys: verifier.keys(), audience: TokenAudience(audience: "another-api")).verify(after)
            }
            #expect(throws: JSONWebTokenError.wrongIssuer) {
                try AccessTokenVerifier(keys: verifier.keys(), audience: TokenAudience(issuer: "someone-else")).verify(after)
            }
            #expect(try independentlyVerified([before, after], jwks: jwks) == ["\(oldKid) ok", "\(newKid) ok", "wrong audience refused"])

            // Nothing is dropped while the old key's tokens may still be valid.
            let retired = try await system.registrar(["keys", "retire-signing"])
            #expect(retired.status == 0 && retired.output.contains("kept \(oldKid)"), "\(retired.output)")
            #expect(try verifier.verify(before).sub == verifier.verify(after).sub)
        }
    }

    private func accessToken(_ system: LiveSystem) async throws -> String {
        let (_, tokens) = try await system.signIn(.password, email: "rotation@example.com", secret: "rotation password by the quiet river")
        return try #require(tokens).accessToken
    }

    /// Verifies `tokens` (read from standard input) with PyJWT against the JWKS at `jwks`, choosing the key
    /// by `kid`; then checks the last one is refused for another audience.
    private func independentlyVerified(_ tokens: [String], jwks: String) throws -> [String] {
        let script = """
            import sys, jwt
            keys = {key.key_id: key.key for key in jwt.PyJWKSet.from_json(open(sys.argv[1]).read()).keys}
            tokens = sys.stdin.read().split()
            for token in tokens:
                kid = jwt.get_unverified_header(token)["kid"]
                jwt.decode(token, keys[kid], algorithms=["EdDSA"], issuer="registrar", audience="registrar-api",
                           options={"require": ["exp", "iss", "aud", "sub"]})
                print(kid, "ok")
            try:
                jwt.decode(tokens[-1], keys[kid], algorithms=["EdDSA"], issuer="registrar", audience="another-api")
            except jwt.InvalidAudienceError:
                print("wrong audience refused")
            """
        let (status, output) = try ChildProcess.run("/usr/bin/python3", ["-c", script, jwks], input: Array(tokens.joined(separator: "\n").utf8))
        #expect(status == 0, "\(output)")
        return output.split(separator: "\n").map(String.init)
    }
}
