import Crypto
import Testing

@Suite struct SecureRandomTests {
    @Test func digitsAreDecimalOfTheRequestedLength() {
        let codes = (0..<50).map { _ in SecureRandom.digits(6) }
        for code in codes {
            #expect(code.count == 6)
            #expect(code.allSatisfy { ("0"..."9").contains($0) })
        }
        #expect(Set(codes).count > 40, "50 six-digit codes should almost never collide")
    }

    @Test func bytesAndUniformAreInRange() {
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(32).count == 32)
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
        #expect((0..<1000).allSatisfy { _ in SecureRandom.uniform(7) < 7 })
        #expect(Set((0..<1000).map { _ in SecureRandom.uniform(7) }).count == 7)
    }

    @Test func uuidIsVersion4() {
        let text = SecureRandom.uuid().uuidString
        let characters = Array(text)
        #expect(characters[14] == "4")
        #expect("89AB".contains(characters[19]))
        #expect(SecureRandom.uuid() != SecureRandom.uuid())
    }

    @Test func tokenIsBase64URL() {
        let token = SecureRandom.token(bytes: 32)
        #expect(token.count == 43)
        #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(Base64URL.decode(token)?.count == 32)
    }
}
