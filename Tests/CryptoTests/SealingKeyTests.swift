import Crypto
import Foundation
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct SealingKeyTests {
    let pair = SealingKeyPair.generate()

    @Test func sealsAndOpens() throws {
        let message = Array("a sealed password".utf8)
        let sealed = pair.publicKey.seal(message)
        #expect(sealed.count == message.count + 48)
        #expect(try pair.open(sealed) == message)
        #expect(try pair.open(pair.publicKey.seal([])) == [])
    }

    @Test func refusesTamperedOrForeignBoxes() {
        var sealed = pair.publicKey.seal(Array("hello".utf8))
        sealed[sealed.count - 1] ^= 1
        #expect(throws: CryptoError.openFailed) { try pair.open(sealed) }
        #expect(throws: CryptoError.openFailed) { try pair.open(Array(sealed.prefix(47))) }
        let other = SealingKeyPair.generate().publicKey.seal(Array("hello".utf8))
        #expect(throws: CryptoError.openFailed) { try pair.open(other) }
    }

    @Test func publicKeyRoundTripsThroughBase64() throws {
        #expect(try SealingPublicKey(base64: pair.publicKey.base64) == pair.publicKey)
        #expect(throws: CryptoError.invalidKey) { try SealingPublicKey(base64: "AAAA") }
        #expect(throws: CryptoError.invalidKey) { try SealingPublicKey(base64: "not base64!") }
    }

    @Test func persistsKeysWithPrivateFileMode() async throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/sealing.key"
            let created = try SealingKeyPair.loadOrCreate(at: path)
            #expect(try permissions(of: path) == 0o600)
            #expect(try SealingPublicKey.load(from: path + ".pub") == created.publicKey)

            let reloaded = try SealingKeyPair.loadOrCreate(at: path)
            #expect(reloaded.publicKey == created.publicKey)
            #expect(try reloaded.open(created.publicKey.seal([1, 2, 3])) == [1, 2, 3])

            let saved = directory + "/saved.key"
            try pair.save(to: saved)
            #expect(try permissions(of: saved) == 0o600)
            #expect(try SealingKeyPair.load(from: saved).publicKey == pair.publicKey)
        }
    }

    @Test func concurrentCreatorsAgreeOnOneKey() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/shared.key"
            let keys = try await withThrowingTaskGroup(of: SealingPublicKey.self) { group in
                for _ in 0..<8 { group.addTask { try SealingKeyPair.loadOrCreate(at: path).publicKey } }
                return try await group.reduce(into: Set()) { $0.insert($1) }
            }
            #expect(keys.count == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["shared.key", "shared.key.pub"])
        }
    }

    @Test func refusesMalformedKeyFiles() async throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/bad.key"
            try "c2hvcnQ=\n".write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
            #expect(throws: CryptoError.self) { try SealingKeyPair.load(from: path) }
            #expect(throws: CryptoError.self) { try SealingKeyPair.load(from: directory + "/missing.key") }
        }
    }
}
