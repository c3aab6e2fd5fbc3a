import Crypto
import Foundation
import Support
@testable import TestSupport
import Testing

/// `registrar keys` makes a key set once, for an operator to distribute; a worker in production mode
/// started without its keys exits 1 naming what is missing, and creates nothing.
@Suite(.tags(.live)) struct KeysCommandTests {
    @Test func keysCreatesAPrivateSetOnceAndPrintsOnlyThePublicKey() async throws {
        try await inTemporaryDirectory { root in
            let keys = root + "/set"
            let first = try await run("registrar", ["keys", "--keys-dir", keys], logs: root)
            #expect(first.status == 0, "\(first.errors)")
            let sealing = try String(contentsOfFile: keys + "/account-worker.seal", encoding: .utf8)
            #expect(first.output == [try SealingPublicKey.load(from: keys + "/account-worker.seal.pub").base64])
            let eventKeys = ["account", "code-dispatch", "image", "operator", "profile"].map { "events-\($0).ed25519" }
            #expect(try FileManager.default.contentsOfDirectory(atPath: keys).sorted() == ([
                "access-tokens.ed25519", "access-tokens.ed25519.pub", "account-worker.seal", "account-worker.seal.pub",
                "codes.hmac", "gateway-reply.seal", "gateway-reply.seal.pub", "jwks.json",
            ] + eventKeys + eventKeys.map { $0 + ".pub" }).sorted())
            #expect(try mode(of: keys) == 0o700)
            for secret in ["account-worker.seal", "access-tokens.ed25519", "codes.hmac", "gateway-reply.seal"] + eventKeys {
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

    /// Each process's keys in a directory of its own (what the README's table says it holds), and a rotation
    /// carried there by renames: public keys before the secret, a retired previous key removed.
    @Test func distributeGivesEachProcessOnlyItsKeysAndCarriesARotation() async throws {
        try await inTemporaryDirectory { root in
            let keys = root + "/set"
            let out = root + "/by-process"
            #expect(try await run("registrar", ["keys", "--keys-dir", keys], logs: root).status == 0)
            #expect(try await run("registrar", ["keys", "distribute", "--keys-dir", keys, "--to", out], logs: root).status == 0)
            let held = try Dictionary(uniqueKeysWithValues: FileManager.default.contentsOfDirectory(atPath: out).map {
                ($0, Set(try FileManager.default.contentsOfDirectory(atPath: out + "/" + $0)))
            })
            #expect(held == [
                "account-worker": ["account-worker.seal", "access-tokens.ed25519", "jwks.json", "codes.hmac", "events-account.ed25519",
                                   "events-account.ed25519.pub", "events-image.ed25519.pub", "events-profile.ed25519.pub",
                                   "events-operator.ed25519.pub"],
                "code-dispatch-worker": ["codes.hmac", "events-code-dispatch.ed25519"],
                "image-worker": ["events-image.ed25519", "events-account.ed25519.pub"],
                "profile-worker": ["events-profile.ed25519", "events-account.ed25519.pub"],
                "gateway": ["gateway-reply.seal", "jwks.json", "events-account.ed25519.pub", "events-code-dispatch.ed25519.pub"],
                "operator": ["events-operator.ed25519", "events-account.ed25519.pub", "events-code-dispatch.ed25519.pub"],
            ])
            for (process, files) in held {
                #expect(try mode(of: out + "/" + process) == 0o700)
                for file in files { #expect(try mode(of: out + "/\(process)/\(file)") == 0o600) }
            }
            let unchanged = try await run("registrar", ["keys", "distribute", "--keys-dir", keys, "--to", out], logs: root)
            #expect(unchanged.output == ["0 changes in \(out)"])

            #expect(try await run("registrar", ["keys", "rotate-events", "--role", "image", "--keys-dir", keys], logs: root).status == 0)
            let rotated = try await run("registrar", ["keys", "distribute", "--keys-dir", keys, "--to", out], logs: root)
            #expect(rotated.output == ["account-worker/events-image.ed25519.pub", "account-worker/events-image.previous.pub",
                                       "image-worker/events-image.ed25519", "3 changes in \(out)"])
            #expect(try await run("registrar", ["keys", "retire-events", "--role", "image", "--keys-dir", keys], logs: root).status == 0)
            let retired = try await run("registrar", ["keys", "distribute", "--keys-dir", keys, "--to", out], logs: root)
            #expect(retired.output == ["account-worker/events-image.previous.pub removed", "1 change in \(out)"])
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
                                       environment: ["REGISTRAR_SEALING_KEY": secret, "REGISTRAR_EVENT_KEY": try eventKey(in: root)],
                                       logs: root)
            #expect(result.status == 1)
            #expect(result.errors.contains("no access-token signing key"), "\(result.errors)")
            #expect(result.errors.contains("--signing-key-file, --keys-dir or $REGISTRAR_SIGNING_KEY"), "\(result.errors)")
            #expect(!result.errors.contains(secret))
            #expect(!FileManager.default.fileExists(atPath: data))
        }
    }

    @Test func rotateEventsKeepsTheOldPublicKeyUntilRetired() async throws {
        try await inTemporaryDirectory { root in
            let keys = root + "/set"
            #expect(try await run("registrar", ["keys", "--keys-dir", keys], logs: root).status == 0)
            let old = try SigningPublicKey.load(from: keys + "/events-image.ed25519.pub")
            let rotated = try await run("registrar", ["keys", "rotate-events", "--role", "image", "--keys-dir", keys], logs: root)
            #expect(rotated.status == 0, "\(rotated.errors)")
            let new = try SigningPublicKey.load(from: keys + "/events-image.ed25519.pub")
            #expect(new != old && rotated.output.first?.contains(new.keyID) == true)
            #expect(try SigningPublicKey.load(from: keys + "/events-image.previous.pub") == old)
            #expect(try mode(of: keys + "/events-image.ed25519") == 0o600)
            #expect(try await run("registrar", ["keys", "retire-events", "--role", "image", "--keys-dir", keys], logs: root).status == 0)
            #expect(!FileManager.default.fileExists(atPath: keys + "/events-image.previous.pub"))
            #expect(try await run("registrar", ["keys", "rotate-events", "--role", "nobody", "--keys-dir", keys], logs: root).status == 2)
        }
    }

    @Test func anImageWorkerInProductionWithoutItsEventKeyExitsOneAndCreatesNothing() async throws {
        try await inTemporaryDirectory { root in
            let data = root + "/data"
            let result = try await run("image-worker", ["--bootstrap", "127.0.0.1:1", "--data-dir", data,
                                                        "--images", "s3://avatars?endpoint=http://127.0.0.1:1"], logs: root)
            #expect(result.status == 1)
            #expect(result.errors.contains("no event signing key of the image role"), "\(result.errors)")
            #expect(result.errors.contains("--event-key-file, --keys-dir or $REGISTRAR_EVENT_KEY"), "\(result.errors)")
            #expect(!FileManager.default.fileExists(atPath: data))
        }
    }

    /// The base64 secret of a new event signing key, saved under `root`.
    private func eventKey(in root: String) throws -> String {
        try SigningKeyPair.generate().save(to: root + "/event")
        return try String(contentsOfFile: root + "/event", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
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
