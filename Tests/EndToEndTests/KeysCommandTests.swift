import Crypto
import Foundation
import StoreTesting
import Support
import Testing

/// `registrar keys` makes a key set once, for an operator to distribute; a worker in production mode
/// started without its keys exits 1 naming what is missing, and creates nothing.
@Suite struct KeysCommandTests {
    @Test func keysCreatesAPrivateSetOnceAndPrintsOnlyThePublicKey() async throws {
        try await inTemporaryDirectory { root in
            let keys = root + "/set"
            let first = try await run("registrar", ["keys", "--keys-dir", keys], logs: root)
            #expect(first.status == 0, "\(first.errors)")
            let sealing = try String(contentsOfFile: keys + "/account-worker.seal", encoding: .utf8)
            #expect(first.output == [try SealingPublicKey.load(from: keys + "/account-worker.seal.pub").base64])
            #expect(try FileManager.default.contentsOfDirectory(atPath: keys).sorted() == [
                "access-tokens.ed25519", "access-tokens.ed25519.pub", "account-worker.seal", "account-worker.seal.pub",
                "codes.hmac", "jwks.json",
            ])
            #expect(try mode(of: keys) == 0o700)
            for secret in ["account-worker.seal", "access-tokens.ed25519", "codes.hmac"] {
                #expect(try mode(of: keys + "/" + secret) == 0o600, "\(secret)")
            }
            let jwks = try String(contentsOfFile: keys + "/jwks.json", encoding: .utf8)
            #expect(jwks.contains(try SigningPublicKey.load(from: keys + "/access-tokens.ed25519.pub").keyID))

            let again = try await run("registrar", ["keys", "--keys-dir", keys], logs: root)
            #expect(again.status == 1)
            #expect(again.errors.contains("exists; keys are never overwritten"), "\(again.errors)")
            #expect(try String(contentsOfFile: keys + "/account-worker.seal", encoding: .utf8) == sealing)
        }
    }

    @Test func anAccountWorkerInProductionWithoutItsKeysExitsOneAndCreatesNothing() async throws {
        try await inTemporaryDirectory { root in
            let sealing = SealingKeyPair.generate()
            try sealing.save(to: root + "/seal")
            let secret = try String(contentsOfFile: root + "/seal", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let data = root + "/data"
            let result = try await run("account-worker", ["--bootstrap", "127.0.0.1:1", "--data-dir", data,
                                                          "--accounts", "postgres://nobody@127.0.0.1:1/none"],
                                       environment: ["REGISTRAR_SEALING_KEY": secret], logs: root)
            #expect(result.status == 1)
            #expect(result.errors.contains("no access-token signing key"), "\(result.errors)")
            #expect(result.errors.contains("--signing-key-file, --keys-dir or $REGISTRAR_SIGNING_KEY"), "\(result.errors)")
            #expect(!result.errors.contains(secret))
            #expect(!FileManager.default.fileExists(atPath: data))
        }
    }

    private func inTemporaryDirectory(_ body: (String) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-keys-\(UUID().uuidString.prefix(8))").path
        try createPrivateDirectory(root)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await body(root)
    }

    /// Runs a binary to its end: its exit status, standard output lines and standard error.
    private func run(_ binary: String, _ arguments: [String], environment: [String: String] = [:],
                     logs: String) async throws -> (status: Int32, output: [String], errors: String) {
        let errors = logs + "/\(binary)-\(UUID().uuidString.prefix(8)).log"
        let process = try ChildProcess(Binaries.path(binary), arguments, environment: environment, errors: .file(errors))
        var output: [String] = []
        while let line = await process.nextLine() { output.append(line) }
        let status = await process.waitForExit()
        return (status, output, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    private func mode(of path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
    }
}
