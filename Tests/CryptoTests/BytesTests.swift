import Crypto
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct BytesTests {
    /// RFC 4231 test cases 1, 2 and 6 (a key longer than the block size).
    @Test(arguments: [
        (bytes(hex: String(repeating: "0b", count: 20)), "Hi There",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), "what do ya want for nothing?",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (bytes(hex: String(repeating: "aa", count: 131)), "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func hmacMatchesRFC4231(key: [UInt8], message: String, expected: String) {
        let authenticator = MessageAuthenticator(key: key)
        let tag = authenticator.tag(Array(message.utf8))
        #expect(tag == bytes(hex: expected))
        #expect(authenticator.verify(tag, for: Array(message.utf8)))
        #expect(!authenticator.verify(tag, for: Array((message + ".").utf8)))
        #expect(!authenticator.verify(Array(tag.prefix(16)), for: Array(message.utf8)))
    }

    /// RFC 6238 appendix B, HMAC-SHA-256: TOTPs at three times (30-second steps), in 8 and 6 digits.
    @Test(arguments: [(59, "46119246"), (1_111_111_109, "68084774"), (2_000_000_000, "90698825")])
    func decimalCodesMatchRFC6238(seconds: UInt64, expected: String) {
        let authenticator = MessageAuthenticator(key: Array("12345678901234567890123456789012".utf8))
        let counter = (0..<8).reversed().map { UInt8(truncatingIfNeeded: (seconds / 30) >> (8 * UInt64($0))) }
        #expect(authenticator.decimalCode(for: counter, digits: 8) == expected)
        #expect(authenticator.decimalCode(for: counter, digits: 6) == String(expected.suffix(6)))
    }

    @Test func constantTimeEqualsComparesContentAndLength() {
        #expect(constantTimeEquals([], []))
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
    }

    @Test func sha256MatchesKnownDigests() {
        #expect(sha256Hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(sha256Hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func base64URLIsStrict() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("-_8=") == nil, "padding is not base64url")
        #expect(Base64URL.decode("+/8") == nil, "standard alphabet is not base64url")
        #expect(Base64URL.decode("-_9") == nil, "non-zero trailing bits")
        #expect(Base64URL.decode("-_ 8") == nil)
    }
}
