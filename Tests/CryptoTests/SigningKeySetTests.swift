import Crypto
import Foundation
@testable import TestSupport
import Testing

/// The access-token signing key's life cycle in a key directory, on an injected clock.
@Suite(.tags(.unit)) struct SigningKeySetTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    let lifetime: TimeInterval = 900

    func keySet(in directory: String) -> SigningKeySet {
        SigningKeySet(secretPath: directory + "/keys/access-tokens.ed25519", jwksPath: directory + "/keys/jwks.json")
    }

    func published(_ set: SigningKeySet) throws -> JSONWebKeySet {
        try JSONWebKeySet(json: Data(contentsOf: URL(fileURLWithPath: set.jwksPath)))
    }

    @Test func aRotatedKeySignsWhileTheOldOneOnlyVerifies() async throws {
        try withTemporaryDirectory { directory in
            let set = keySet(in: directory)
            let first = try set.create()
            #expect(try published(set) == JSONWebKeySet([first.publicKey]))

            let (second, retired) = try set.rotate(now: start)
            #expect(retired == .init(kid: first.publicKey.keyID, publicKey: first.publicKey.base64, retiredAt: start.timeIntervalSince1970))
            #expect(second.publicKey != first.publicKey)
            // The key file now holds the new key only: the old secret is gone.
            #expect(try SigningKeyPair.load(from: set.secretPath).publicKey == second.publicKey)
            #expect(try SigningPublicKey.load(from: set.secretPath + ".pub") == second.publicKey)
            #expect(try published(set) == JSONWebKeySet([second.publicKey, first.publicKey]))

            let (third, _) = try set.rotate(now: start + 60)
            #expect(try published(set) == JSONWebKeySet([third.publicKey, second.publicKey, first.publicKey]))
            // Creating again never overwrites.
            #expect(throws: CryptoError.self) { try set.create() }
        }
    }

    @Test func aRetiredKeyStaysUntilItsTokensHaveExpired() async throws {
        try withTemporaryDirectory { directory in
            let set = keySet(in: directory)
            let first = try set.create()
            let (second, _) = try set.rotate(now: start)
            let (third, _) = try set.rotate(now: start + 300)

            // At start + lifetime − 1 s the first key's last tokens are still valid: nothing is dropped.
            #expect(try set.retire(now: start + lifetime - 1, tokenLifetime: lifetime).isEmpty)
            #expect(try published(set) == JSONWebKeySet([third.publicKey, second.publicKey, first.publicKey]))
            // Past start + lifetime the first key goes; the second, retired later, stays.
            let dropped = try set.retire(now: start + lifetime + 1, tokenLifetime: lifetime)
            #expect(dropped.map(\.kid) == [first.publicKey.keyID])
            #expect(try set.retired().map(\.kid) == [second.publicKey.keyID])
            #expect(try published(set) == JSONWebKeySet([third.publicKey, second.publicKey]))
            // The current key is never retired, whatever the clock.
            try set.retire(now: start + 86_400, tokenLifetime: lifetime)
            #expect(try published(set) == JSONWebKeySet([third.publicKey]))
        }
    }

    @Test func aTokenOfTheOldKeyVerifiesThroughTheJWKSUntilTheKeyIsRetired() async throws {
        struct Claims: Codable { var iss = "registrar", aud = "registrar-api", sub = "user-1", exp: Date }
        try withTemporaryDirectory { directory in
            let set = keySet(in: directory)
            let first = try set.create()
            let signedAt = start + 10
            let token = try JSONWebToken.sign(Claims(exp: signedAt + lifetime), keyID: first.publicKey.keyID, with: first)
            _ = try set.rotate(now: signedAt)
            func verify(at now: Date) throws(JSONWebTokenError) -> String {
                let keys = (try? published(set)) ?? JSONWebKeySet([])
                return try JSONWebToken.verify(token, as: Claims.self, using: keys, issuer: "registrar", audience: "registrar-api", now: now).sub
            }
            #expect(try verify(at: signedAt + 1) == "user-1")
            // Its last token still valid: the retired key stays and verifies.
            #expect(try set.retire(now: signedAt + lifetime - 1, tokenLifetime: lifetime).isEmpty)
            #expect(try verify(at: signedAt + lifetime - 1) == "user-1")
            // Its tokens all expired: the key goes, and its tokens name an unknown key.
            #expect(try set.retire(now: signedAt + lifetime + 1, tokenLifetime: lifetime).count == 1)
            #expect(throws: JSONWebTokenError.unknownKey) { try verify(at: signedAt + 1) }
        }
    }

    @Test func anInterruptedRotationLeavesTheSigningKeyVerifiable() async throws {
        try withTemporaryDirectory { directory in
            let set = keySet(in: directory)
            let first = try set.create()
            _ = try set.rotate(now: start)
            // As if the rotation had died before replacing the key file: the old key is back as current.
            try first.save(to: set.secretPath)
            try set.publish(current: first.publicKey)
            #expect(try published(set).key(id: first.publicKey.keyID) == first.publicKey)
            #expect(try published(set).entries.first?.keyID == first.publicKey.keyID)
            try set.retire(now: start + 86_400, tokenLifetime: lifetime)
            #expect(try published(set) == JSONWebKeySet([first.publicKey]))
        }
    }

    @Test func theKeyFileAndTheJWKSAreReReadWhenRotated() async throws {
        try withTemporaryDirectory { directory in
            let set = keySet(in: directory)
            let first = try set.create()
            let file = try SigningKeyFile(path: set.secretPath)
            let jwks = try JSONWebKeySetFile(path: set.jwksPath)
            #expect(file.current.publicKey == first.publicKey)
            let (second, _) = try set.rotate(now: start)
            #expect(file.current.publicKey == second.publicKey)
            #expect(jwks.current == JSONWebKeySet([second.publicKey, first.publicKey]))
            // A replacement that cannot be read (here: opened to others) leaves the last key signing.
            try SigningKeyPair.generate().save(to: set.secretPath)
            chmod(set.secretPath, 0o644)
            #expect(file.current.publicKey == second.publicKey)
        }
    }

    /// A worker restarted with its keys unchanged writes nothing (so it starts on a full or read-only disk); a JWKS
    /// that must change is replaced whole, by a rename.
    @Test func publishingAnUnchangedKeySetWritesNothing() async throws {
        try withTemporaryDirectory { directory in
            let set = keySet(in: directory)
            let first = try set.create()
            let before = try FileManager.default.attributesOfItem(atPath: set.jwksPath)
            chmod(directory + "/keys", 0o500)
            defer { chmod(directory + "/keys", 0o700) }
            #expect(try set.publish(current: first.publicKey) == false)
            let after = try FileManager.default.attributesOfItem(atPath: set.jwksPath)
            #expect(after[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int)
            #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date)
            chmod(directory + "/keys", 0o700)
            let second = SigningKeyPair.generate()
            #expect(try set.publish(current: second.publicKey) == true)
            #expect(try FileManager.default.attributesOfItem(atPath: set.jwksPath)[.systemFileNumber] as? Int
                    != before[.systemFileNumber] as? Int, "a new file renamed over the old one")
            #expect(try published(set).entries.first?.keyID == second.publicKey.keyID)
        }
    }
}
