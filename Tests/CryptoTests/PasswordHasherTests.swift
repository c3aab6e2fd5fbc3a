import Crypto
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct PasswordHasherTests {
    let hasher = PasswordHasher()

    @Test func hashesWithArgon2idAtOWASPCost() throws {
        let encoded = try hasher.hash("correct horse battery staple")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(try hasher.hash("correct horse battery staple") != encoded, "each hash has a fresh salt")
    }

    @Test func verifiesTheRightPasswordOnly() throws {
        let encoded = try hasher.hash("pässwörd with ünicode")
        #expect(hasher.verify("pässwörd with ünicode", against: encoded))
        #expect(!hasher.verify("pässwörd with ünicodE", against: encoded))
        #expect(!hasher.verify("", against: encoded))
    }

    @Test func normalisesUnicode() throws {
        let encoded = try hasher.hash("caf\u{E9}")
        #expect(hasher.verify("cafe\u{301}", against: encoded), "decomposed é matches precomposed é")
        #expect(hasher.verify("\u{FF43}af\u{E9}", against: encoded), "fullwidth c matches c (NFKC)")
        #expect(!hasher.verify("cafe", against: encoded))
    }

    @Test func rejectsMalformedHashes() {
        #expect(!hasher.verify("anything", against: ""))
        #expect(!hasher.verify("anything", against: "$argon2id$v=19$m=19456,t=2,p=1$bm9wZQ$bm9wZQ"))
        #expect(hasher.needsRehash("not a hash"))
    }

    @Test func asksForRehashWhenParametersChange() throws {
        let weaker = try PasswordHasher(opsLimit: 1, memoryLimit: 8 * 1024 * 1024).hash("secret")
        #expect(hasher.needsRehash(weaker))
        #expect(hasher.verify("secret", against: weaker), "old hashes still verify with their own parameters")
        #expect(!hasher.needsRehash(try hasher.hash("secret")))
    }
}
