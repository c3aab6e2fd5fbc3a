import Crypto
import Foundation
import Testing

@Suite struct JSONWebTokenTests {
    struct Claims: Codable, Equatable {
        var sub: String
        var exp: Date
        var nbf: Date?
        var email: String
    }

    let key = SigningKeyPair.generate()
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    var claims: Claims { Claims(sub: "user-1", exp: now + 600, email: "a@example.com") }

    @Test func roundTrips() throws {
        let token = try JSONWebToken.sign(claims, keyID: "k1", with: key)
        #expect(token.split(separator: ".").count == 3)
        #expect(try JSONWebToken.verify(token, as: Claims.self, with: key.publicKey, now: now) == claims)
    }

    @Test func headerNamesEdDSAAndTheKey() throws {
        let token = try JSONWebToken.sign(claims, keyID: "k1", with: key)
        let header = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(token.prefix { $0 != "." }))!)) as! [String: String]
        #expect(header == ["alg": "EdDSA", "typ": "JWT", "kid": "k1"])
        #expect(try JSONWebToken.header(of: token).kid == "k1")
        let payload = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(token.split(separator: ".")[1]))!)) as! [String: Any]
        #expect(payload["exp"] as? Int == 1_700_000_600, "dates are NumericDate seconds")
    }

    @Test func rejectsExpiredAndNotYetValidTokens() throws {
        let token = try JSONWebToken.sign(claims, keyID: "k1", with: key)
        #expect(throws: JSONWebTokenError.expired) {
            try JSONWebToken.verify(token, as: Claims.self, with: key.publicKey, now: now + 600)
        }
        var early = claims
        early.nbf = now + 60
        let earlyToken = try JSONWebToken.sign(early, keyID: "k1", with: key)
        #expect(throws: JSONWebTokenError.notYetValid) {
            try JSONWebToken.verify(earlyToken, as: Claims.self, with: key.publicKey, now: now)
        }
    }

    @Test func rejectsTokensWithoutExpiry() throws {
        struct Forever: Codable { var sub: String }
        let token = try JSONWebToken.sign(Forever(sub: "user-1"), keyID: "k1", with: key)
        #expect(throws: JSONWebTokenError.missingExpiry) {
            try JSONWebToken.verify(token, as: Forever.self, with: key.publicKey, now: now)
        }
    }

    @Test func rejectsTamperedTokens() throws {
        let token = try JSONWebToken.sign(claims, keyID: "k1", with: key)
        let parts = token.split(separator: ".").map(String.init)
        let forgedPayload = Base64URL.encode(Array(try JSONEncoder().encode(["sub": "admin"])))
        #expect(throws: JSONWebTokenError.invalidSignature) {
            try JSONWebToken.verify([parts[0], forgedPayload, parts[2]].joined(separator: "."), as: Claims.self, with: key.publicKey, now: now)
        }
        #expect(throws: JSONWebTokenError.invalidSignature) {
            try JSONWebToken.verify(token, as: Claims.self, with: SigningKeyPair.generate().publicKey, now: now)
        }
        #expect(throws: JSONWebTokenError.malformed) {
            try JSONWebToken.verify(parts[0] + "." + parts[1], as: Claims.self, with: key.publicKey, now: now)
        }
        #expect(throws: JSONWebTokenError.malformed) {
            try JSONWebToken.verify(token + "=", as: Claims.self, with: key.publicKey, now: now)
        }
    }

    @Test func rejectsOtherAlgorithms() throws {
        let token = try JSONWebToken.sign(claims, keyID: "k1", with: key)
        let parts = token.split(separator: ".").map(String.init)
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        #expect(throws: JSONWebTokenError.unsupportedAlgorithm("none")) {
            try JSONWebToken.verify([none, parts[1], ""].joined(separator: "."), as: Claims.self, with: key.publicKey, now: now)
        }
    }

    @Test func publishesTheKeyAsJWKS() throws {
        let json = jwks(for: key.publicKey, keyID: "k1")
        let set = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: [[String: String]]]
        let entry = try #require(set["keys"]?.first)
        #expect(set["keys"]?.count == 1)
        #expect(entry["kty"] == "OKP")
        #expect(entry["crv"] == "Ed25519")
        #expect(entry["alg"] == "EdDSA")
        #expect(entry["use"] == "sig")
        #expect(entry["kid"] == "k1")
        #expect(entry["x"].flatMap(Base64URL.decode) == key.publicKey.bytes)
    }
}
