import Crypto
import Foundation
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct JSONWebTokenTests {
    struct Claims: Codable, Equatable {
        var iss: String?
        var aud: String?
        var sub: String
        var exp: Date
        var nbf: Date?
        var email: String
    }

    let key = SigningKeyPair.generate()
    var keys: JSONWebKeySet { JSONWebKeySet([key.publicKey]) }
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    var claims: Claims { Claims(iss: "issuer", aud: "audience", sub: "user-1", exp: now + 600, email: "a@example.com") }

    func sign<C: Encodable>(_ claims: C, keyID: String? = nil, with key: SigningKeyPair? = nil) throws -> String {
        let key = key ?? self.key
        return try JSONWebToken.sign(claims, keyID: keyID ?? key.publicKey.keyID, with: key)
    }

    func verify(_ token: String, keys: JSONWebKeySet? = nil, at time: Date? = nil) throws(JSONWebTokenError) -> Claims {
        try JSONWebToken.verify(token, as: Claims.self, using: keys ?? self.keys, issuer: "issuer", audience: "audience", now: time ?? now)
    }

    @Test func roundTrips() throws {
        let token = try sign(claims)
        #expect(token.split(separator: ".").count == 3)
        #expect(try verify(token) == claims)
    }

    @Test func headerNamesEdDSAAndTheKey() throws {
        let token = try sign(claims, keyID: "k1")
        let header = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(token.prefix { $0 != "." }))!)) as! [String: String]
        #expect(header == ["alg": "EdDSA", "typ": "JWT", "kid": "k1"])
        #expect(try JSONWebToken.header(of: token).kid == "k1")
        let payload = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(String(token.split(separator: ".")[1]))!)) as! [String: Any]
        #expect(payload["exp"] as? Int == 1_700_000_600, "dates are NumericDate seconds")
    }

    @Test func rejectsExpiredAndNotYetValidTokens() throws {
        let token = try sign(claims)
        #expect(throws: JSONWebTokenError.expired) { try verify(token, at: now + 600) }
        var early = claims
        early.nbf = now + 60
        #expect(throws: JSONWebTokenError.notYetValid) { try verify(try sign(early)) }
    }

    @Test func rejectsTokensWithoutExpiry() throws {
        struct Forever: Codable { var iss = "issuer", aud = "audience", sub = "user-1" }
        #expect(throws: JSONWebTokenError.missingExpiry) { try verify(try sign(Forever())) }
    }

    @Test func requiresTheIssuerAndTheAudience() throws {
        var other = claims
        other.iss = "someone-else"
        #expect(throws: JSONWebTokenError.wrongIssuer) { try verify(try sign(other)) }
        other.iss = nil
        #expect(throws: JSONWebTokenError.wrongIssuer) { try verify(try sign(other)) }
        other = claims
        other.aud = "another-api"
        #expect(throws: JSONWebTokenError.wrongAudience) { try verify(try sign(other)) }
        other.aud = nil
        #expect(throws: JSONWebTokenError.wrongAudience) { try verify(try sign(other)) }
    }

    @Test func acceptsAnAudienceListNamingTheAudience() throws {
        struct Listed: Codable { var iss = "issuer", aud: [String], sub = "user-1", exp: Date, email = "a@example.com" }
        let (now, keys) = (self.now, self.keys)
        func verify(_ audiences: [String]) throws -> Listed {
            try JSONWebToken.verify(try sign(Listed(aud: audiences, exp: now + 60)), as: Listed.self, using: keys,
                                    issuer: "issuer", audience: "audience", now: now)
        }
        #expect(try verify(["other", "audience"]).sub == "user-1")
        #expect(throws: JSONWebTokenError.wrongAudience) { try verify(["other"]) }
    }

    @Test func choosesTheKeyByKidAndRefusesUnknownOrMissingOnes() throws {
        let older = SigningKeyPair.generate()
        let both = JSONWebKeySet([key.publicKey, older.publicKey])
        #expect(try verify(try sign(claims, with: older), keys: both) == claims)
        #expect(try verify(try sign(claims), keys: both) == claims)
        #expect(throws: JSONWebTokenError.unknownKey) { try verify(try sign(claims, with: older)) }
        // A kid the set holds, but a signature by another key.
        #expect(throws: JSONWebTokenError.invalidSignature) { try verify(try sign(claims, keyID: key.publicKey.keyID, with: older)) }
        let parts = try sign(claims).split(separator: ".").map(String.init)
        let noKid = Base64URL.encode(Array(#"{"alg":"EdDSA","typ":"JWT"}"#.utf8))
        #expect(throws: JSONWebTokenError.unknownKey) { try verify([noKid, parts[1], parts[2]].joined(separator: ".")) }
    }

    @Test func rejectsTamperedTokens() throws {
        let token = try sign(claims)
        let parts = token.split(separator: ".").map(String.init)
        let forgedPayload = Base64URL.encode(Array(try JSONEncoder().encode(["sub": "admin"])))
        #expect(throws: JSONWebTokenError.invalidSignature) { try verify([parts[0], forgedPayload, parts[2]].joined(separator: ".")) }
        #expect(throws: JSONWebTokenError.invalidSignature) {
            try verify(token, keys: JSONWebKeySet(entries: [.init(keyID: key.publicKey.keyID, key: SigningKeyPair.generate().publicKey)]))
        }
        #expect(throws: JSONWebTokenError.malformed) { try verify(parts[0] + "." + parts[1]) }
        #expect(throws: JSONWebTokenError.malformed) { try verify(token + "=") }
    }

    @Test func rejectsOtherAlgorithms() throws {
        let parts = try sign(claims).split(separator: ".").map(String.init)
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        #expect(throws: JSONWebTokenError.unsupportedAlgorithm("none")) { try verify([none, parts[1], ""].joined(separator: ".")) }
    }

    @Test func publishesTheKeysAsJWKS() throws {
        let older = SigningKeyPair.generate()
        let set = JSONWebKeySet([key.publicKey, older.publicKey])
        let document = try JSONSerialization.jsonObject(with: Data(set.json.utf8)) as! [String: [[String: String]]]
        let entries = try #require(document["keys"])
        #expect(entries.map { $0["kid"] } == [key.publicKey.keyID, older.publicKey.keyID])
        for (entry, publicKey) in zip(entries, [key.publicKey, older.publicKey]) {
            #expect(Set(entry.keys) == ["kty", "crv", "x", "kid", "alg", "use"])
            #expect(entry["kty"] == "OKP" && entry["crv"] == "Ed25519" && entry["alg"] == "EdDSA" && entry["use"] == "sig")
            #expect(entry["x"].flatMap(Base64URL.decode) == publicKey.bytes)
        }
        #expect(try JSONWebKeySet(json: Data(set.json.utf8)) == set)
    }

    @Test func readsOnlyEd25519SigningKeysFromAJWKS() throws {
        let x = Base64URL.encode(key.publicKey.bytes)
        let document = """
            {"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB","kid":"rsa"},{"kty":"OKP","crv":"X25519","x":"\(x)","kid":"dh"},
            {"kty":"OKP","crv":"Ed25519","x":"\(x)","kid":"enc","use":"enc"},{"kty":"OKP","crv":"Ed25519","x":"\(x)","kid":"k1"}]}
            """
        #expect(try JSONWebKeySet(json: Data(document.utf8)).entries == [.init(keyID: "k1", key: key.publicKey)])
        #expect(throws: CryptoError.invalidKey) {
            try JSONWebKeySet(json: Data(#"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"\#(x)"}]}"#.utf8))
        }
    }
}
