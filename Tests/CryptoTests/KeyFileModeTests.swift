import Crypto
import Foundation
import Support
@testable import TestSupport
import Testing

/// Key files are 0600 in 0700 directories; one open to group or others is refused, naming it and its mode;
/// a new set never replaces an existing key; keys from the environment decode without naming their value.
@Suite(.tags(.unit)) struct KeyFileModeTests {
    @Test func createsSecretsPrivateInAPrivateDirectory() async throws {
        try withTemporaryDirectory { directory in
            let keys = directory + "/new/keys"
            let sealing = try SealingKeyPair.create(at: keys + "/seal")
            _ = try SigningKeyPair.create(at: keys + "/sign")
            _ = try MessageAuthenticator.create(at: keys + "/codes")
            #expect(try permissions(of: keys) == 0o700)
            for name in ["seal", "sign", "codes"] { #expect(try permissions(of: keys + "/" + name) == 0o600) }
            #expect(try SealingKeyPair.load(from: keys + "/seal").publicKey == sealing.publicKey)
        }
    }

    @Test func refusesAKeyFileOpenToOthers() async throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/seal"
            _ = try SealingKeyPair.create(at: path)
            chmod(path, 0o644)
            for load in [{ _ = try SealingKeyPair.load(from: path) }, { _ = try SealingKeyPair.loadOrCreate(at: path) }] {
                #expect(throws: PrivateFileError.tooWide(path, mode: 0o644, isDirectory: false)) { try load() }
            }
            #expect("\(PrivateFileError.tooWide(path, mode: 0o644, isDirectory: false))".contains("\(path) has mode 0644"))
        }
    }

    @Test func refusesAKeyDirectoryOpenToOthers() async throws {
        try withTemporaryDirectory { directory in
            let keys = directory + "/keys"
            try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            #expect(throws: PrivateFileError.tooWide(keys, mode: 0o755, isDirectory: true)) {
                try MessageAuthenticator.loadOrCreate(at: keys + "/codes")
            }
            #expect(!FileManager.default.fileExists(atPath: keys + "/codes"))
        }
    }

    @Test func neverReplacesAnExistingKey() async throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/sign"
            let first = try SigningKeyPair.create(at: path)
            #expect(throws: CryptoError.self) { try SigningKeyPair.create(at: path) }
            #expect(throws: CryptoError.self) { try MessageAuthenticator.create(at: path) }
            #expect(try SigningKeyPair.load(from: path).publicKey == first.publicKey)
        }
    }

    @Test func decodesKeysFromBase64WithoutNamingTheValue() async throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/seal"
            let pair = try SealingKeyPair.create(at: path)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(try SealingKeyPair(base64Secret: text, source: "REGISTRAR_SEALING_KEY").publicKey == pair.publicKey)
            let codes = try MessageAuthenticator(base64Secret: text, source: "REGISTRAR_CODE_SECRET")
            #expect(codes.tag([1]) == (try MessageAuthenticator.load(from: path)).tag([1]))
            let short = "c2hvcnQ="
            do {
                _ = try SigningKeyPair(base64Secret: short, source: "REGISTRAR_SIGNING_KEY")
                Issue.record("a short key was accepted")
            } catch {
                #expect(error as? CryptoError == .keyFile(path: "REGISTRAR_SIGNING_KEY", reason: "not a 32-byte base64 key"))
                #expect(!"\(error)".contains(short))
            }
        }
    }
}
