import Crypto
import Foundation
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct SigningKeyTests {
    @Test func matchesRFC8032TestVector1() async throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/rfc8032.key"
            let seed = bytes(hex: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
            try (Data(seed).base64EncodedString() + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
            let pair = try SigningKeyPair.load(from: path)
            #expect(pair.publicKey.bytes == bytes(hex: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
            #expect(pair.sign([]) == bytes(hex: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"))
        }
    }

    @Test func verifiesOnlyUntamperedSignatures() {
        let pair = SigningKeyPair.generate()
        let message = Array("sign me".utf8)
        var signature = pair.sign(message)
        #expect(pair.publicKey.verify(signature: signature, message: message))
        #expect(!pair.publicKey.verify(signature: signature, message: Array("sign me!".utf8)))
        #expect(!SigningKeyPair.generate().publicKey.verify(signature: signature, message: message))
        #expect(!pair.publicKey.verify(signature: Array(signature.prefix(63)), message: message))
        signature[0] ^= 0x80
        #expect(!pair.publicKey.verify(signature: signature, message: message))
    }

    @Test func persistsTheSeed() async throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/signing.key"
            let created = try SigningKeyPair.loadOrCreate(at: path)
            #expect(try permissions(of: path) == 0o600)
            #expect(try String(contentsOfFile: path, encoding: .utf8).count == 45, "44 base64 characters of a 32-byte seed, then a newline")
            let reloaded = try SigningKeyPair.loadOrCreate(at: path)
            #expect(reloaded.publicKey == created.publicKey)
            #expect(try SigningPublicKey.load(from: path + ".pub") == created.publicKey)
            #expect(created.publicKey.verify(signature: reloaded.sign([42]), message: [42]))
        }
    }

    @Test func restoresAMissingPublicKeyFile() async throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/signing.key"
            let created = try SigningKeyPair.loadOrCreate(at: path)
            try FileManager.default.removeItem(atPath: path + ".pub")
            _ = try SigningKeyPair.loadOrCreate(at: path)
            #expect(try SigningPublicKey(base64: String(contentsOfFile: path + ".pub", encoding: .utf8).trimmingCharacters(in: .newlines)) == created.publicKey)
        }
    }

    @Test func descriptionsHideSecrets() async throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/signing.key"
            let pair = try SigningKeyPair.loadOrCreate(at: path)
            let seedText = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .newlines)
            let seed = try #require(Data(base64Encoded: seedText)).map { $0 }
            for text in [String(describing: pair), String(reflecting: pair), String(describing: MessageAuthenticator(key: seed))] {
                #expect(!text.contains(seedText))
                #expect(!text.contains(seed.map(String.init).joined(separator: ", ")))
            }
        }
    }
}
