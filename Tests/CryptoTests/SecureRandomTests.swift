import Crypto
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct SecureRandomTests {
    @Test func bytesAreRandomOfTheRequestedLength() {
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(32).count == 32)
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
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
