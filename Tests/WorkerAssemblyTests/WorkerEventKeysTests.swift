import AccountAssembly
import Backends
import CodeDispatchAssembly
import Crypto
import Domain
import EventTransport
import Foundation
import ImageAssembly
import ProfileAssembly
import Support
@testable import TestSupport
import Testing
@testable import WorkerAssembly

/// Each worker's event keys: its own role's private key and the public keys of the roles whose events
/// it takes, nothing else; in production only from the operator (environment, file, key directory), never created.
@Suite(.tags(.unit)) struct WorkerEventKeysTests {
    static let production = ["--profiles", "postgres://nobody@127.0.0.1:1/none"]

    @Test func eachWorkerTrustsTheProducersOfItsRoutesOnly() throws {
        try withTemporaryDirectory { data in
            let producers = [try Self.producers(AccountWorker.self, data), try Self.producers(ImageWorker.self, data),
                             try Self.producers(ProfileWorker.self, data), try Self.producers(CodeDispatchWorker.self, data)]
            #expect(producers == [[.account, .image, .profile, .operator], [.account], [.account], []])
        }
    }

    /// The roles whose events the worker of `kind` takes, its stack built on embedded stores under `data`.
    static func producers<Kind: RunnableWorker>(_ kind: Kind.Type, _ data: String) throws -> Set<WorkerRole> {
        let parsed = try ParsedArguments(["--data-dir", data + "/" + kind.name], spec: kind.spec, environment: [:])
        return try kind.stack(parsed, dataDirectory: data + "/" + kind.name, clock: Date.init).routing.producers
    }

    @Test func productionLoadsItsOwnKeyAndItsProducersPublicKeysOnly() throws {
        try withTemporaryDirectory { root in
            let set = EventKeyDirectory(root + "/set")
            try set.create(WorkerRole.allCases)
            // What an operator hands the profile worker: its own key and the account role's public key.
            let handed = EventKeyDirectory(root + "/profile-keys")
            try FileManager.default.createDirectory(atPath: handed.path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            try SigningKeyPair.load(from: set.secretPath(of: .profile)).save(to: handed.secretPath(of: .profile))
            try SigningPublicKey.load(from: set.publicPath(of: .account)).save(to: handed.publicPath(of: .account))
            let parsed = try ParsedArguments(["--data-dir", root + "/data", "--keys-dir", handed.path] + Self.production,
                                             spec: ProfileWorker.spec, environment: [:])
            let keys = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: root + "/data"), environment: [:])
            #expect(try keys.eventSigner(.profile).publicKey == SigningPublicKey.load(from: set.publicPath(of: .profile)))
            #expect(try keys.eventVerifier(trusting: [.account]).roles == [.account])
            // Another role's key is not there, and is never created.
            #expect(throws: CryptoError.self) { try keys.eventSigner(.image) }
            #expect(throws: CryptoError.self) { try keys.eventVerifier(trusting: [.image]) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: handed.path).sorted()
                    == [EventKeyDirectory.secretFile(of: .account) + ".pub", EventKeyDirectory.secretFile(of: .profile),
                        EventKeyDirectory.secretFile(of: .profile) + ".pub"])
            #expect(!FileManager.default.fileExists(atPath: root + "/data"))
        }
    }

    @Test func productionRefusesToStartWithoutEventKeys() throws {
        try withTemporaryDirectory { data in
            let parsed = try ParsedArguments(["--data-dir", data] + Self.production, spec: ProfileWorker.spec, environment: [:])
            let keys = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: data), environment: [:])
            let missing = #expect(throws: MissingKey.self) { try keys.eventSigner(.profile) }
            #expect(missing?.description.contains("--event-key-file, --keys-dir or $REGISTRAR_EVENT_KEY") == true)
            #expect(throws: MissingPublicEventKey.self) { try keys.eventVerifier(trusting: [.account]) }
            #expect(!FileManager.default.fileExists(atPath: data + "/keys"))
        }
    }

    @Test func productionTakesEventKeysFromTheEnvironment() throws {
        try withTemporaryDirectory { root in
            let set = EventKeyDirectory(root + "/set")
            try set.create(WorkerRole.allCases)
            _ = try set.rotate(.account)
            let accountKeys = try set.publicKeys(of: .account, creatingMissing: false)
            let environment = [
                "REGISTRAR_EVENT_KEY": try String(contentsOfFile: set.secretPath(of: .image), encoding: .utf8),
                WorkerKeys.publicEventKeysVariable: accountKeys.map { "account=" + $0.base64 }.joined(separator: " "),
            ]
            let parsed = try ParsedArguments(["--data-dir", root + "/data", "--images", "s3://avatars?endpoint=http://127.0.0.1:1"],
                                             spec: ImageWorker.spec, environment: [:])
            let keys = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: root + "/data"), environment: environment)
            #expect(try keys.eventSigner(.image).publicKey == SigningPublicKey.load(from: set.publicPath(of: .image)))
            #expect(try keys.eventVerifier(trusting: [.account]).roles == [.account])
            #expect(throws: MissingPublicEventKey.self) { try keys.eventVerifier(trusting: [.account, .profile]) }
            #expect(!FileManager.default.fileExists(atPath: root + "/data"))
        }
    }

    @Test func embeddedCreatesTheRolesKeysInTheDataDirectory() throws {
        try withTemporaryDirectory { data in
            let parsed = try ParsedArguments(["--data-dir", data], spec: ImageWorker.spec, environment: [:])
            let keys = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: data), environment: [:])
            let signer = try keys.eventSigner(.image)
            #expect(try keys.eventSigner(.image).publicKey == signer.publicKey)
            #expect(try keys.eventVerifier(trusting: [.account]).roles == [.account])
            let directory = EventKeyDirectory(data + "/keys")
            #expect(try FileManager.default.attributesOfItem(atPath: directory.secretPath(of: .image))[.posixPermissions] as? Int == 0o600)
            #expect(try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int == 0o700)
            #expect(!FileManager.default.fileExists(atPath: data + "/keys/" + KeyFileName.sealing))
        }
    }
}
