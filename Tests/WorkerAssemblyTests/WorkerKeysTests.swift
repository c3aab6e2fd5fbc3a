import AccountAssembly
import Backends
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

/// Which keys each worker holds and where it finds them: in production mode only from the operator
/// (environment, files, key directory), never created; in embedded mode created in `<data>/keys`.
@Suite(.tags(.unit)) struct WorkerKeysTests {
    static let production = ["--accounts", "postgres://nobody@127.0.0.1:1/none"]

    @Test func eachWorkerHasOptionsForItsOwnKeysOnly() {
        let keyOptions = ["keys-dir", "event-key-file", "sealing-key-file", "signing-key-file", "code-secret-file"]
        func options(_ spec: CommandSpec) -> [String] { spec.options.map(\.name).filter(keyOptions.contains) }
        #expect(options(AccountWorker.spec) == keyOptions)
        #expect(options(CodeDispatchWorker.spec) == ["keys-dir", "event-key-file", "code-secret-file"])
        #expect(options(ImageWorker.spec) == ["keys-dir", "event-key-file"])
        #expect(options(ProfileWorker.spec) == ["keys-dir", "event-key-file"])
        // Key values come from the environment alone, never from an option (argv).
        let variables = [AccountWorker.spec, CodeDispatchWorker.spec, ImageWorker.spec].flatMap(\.options).compactMap(\.environment)
        #expect(!variables.contains {
            ["REGISTRAR_SEALING_KEY", "REGISTRAR_SIGNING_KEY", "REGISTRAR_CODE_SECRET", "REGISTRAR_EVENT_KEY"].contains($0)
        })
    }

    @Test func productionRefusesToStartWithoutKeysAndCreatesNone() throws {
        try withTemporaryDirectory { data in
            let parsed = try ParsedArguments(["--data-dir", data] + Self.production, spec: AccountWorker.spec, environment: [:])
            let keys = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: data), environment: [:])
            let error = #expect(throws: MissingKey.self) { try keys.sealingKeyPair() }
            #expect(error?.description.contains("--sealing-key-file, --keys-dir or $REGISTRAR_SEALING_KEY") == true)
            #expect(throws: MissingKey.self) { try keys.signingKey() }
            #expect(throws: MissingKey.self) { try keys.codeSecret() }
            // The whole worker stops there, before reaching its stores.
            #expect(throws: MissingKey.self) { try AccountWorker.stack(parsed, dataDirectory: data, clock: Date.init) }
            #expect(!FileManager.default.fileExists(atPath: data + "/keys"))
        }
    }

    @Test func productionTakesKeysFromTheEnvironmentFilesAndKeyDirectory() throws {
        try withTemporaryDirectory { root in
            let set = root + "/set"
            let sealing = try SealingKeyPair.create(at: set + "/" + KeyFileName.sealing)
            let signing = try SigningKeyPair.create(at: root + "/signing.key")
            let codes = try MessageAuthenticator.create(at: set + "/" + KeyFileName.codeSecret)
            let environment = ["REGISTRAR_SEALING_KEY": try String(contentsOfFile: set + "/" + KeyFileName.sealing, encoding: .utf8)]
            let parsed = try ParsedArguments(["--data-dir", root + "/data", "--keys-dir", set, "--signing-key-file", root + "/signing.key"]
                                             + Self.production, spec: AccountWorker.spec, environment: [:])
            try FileManager.default.removeItem(atPath: set + "/" + KeyFileName.sealing)
            let keys = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: root + "/data"), environment: environment)
            #expect(try keys.sealingKeyPair().publicKey == sealing.publicKey)
            let signingKey = try keys.signingKey()
            #expect(signingKey().publicKey == signing.publicKey)
            // A signing key file replaced under a running worker (rotation) signs from the next token on.
            let rotated = SigningKeyPair.generate()
            try rotated.save(to: root + "/signing.key")
            #expect(signingKey().publicKey == rotated.publicKey)
            #expect(try keys.codeSecret().tag([1]) == codes.tag([1]))
            // A key missing from the directory is an error, not a new key.
            let withoutSealing = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: root + "/data"), environment: [:])
            #expect(throws: CryptoError.self) { try withoutSealing.sealingKeyPair() }
            #expect(!FileManager.default.fileExists(atPath: set + "/" + KeyFileName.sealing))
            #expect(!FileManager.default.fileExists(atPath: root + "/data"))
        }
    }

    /// `--keys-dir` defaults to `<data>/keys` in production mode too: a worker whose keys are there needs no option.
    @Test func productionFindsItsKeysInTheDataDirectorysKeysByDefault() throws {
        try withTemporaryDirectory { data in
            let directory = EmbeddedBackends(data).keysDirectory
            let sealing = try SealingKeyPair.create(at: directory + "/" + KeyFileName.sealing)
            let codes = try MessageAuthenticator.create(at: directory + "/" + KeyFileName.codeSecret)
            let events = EventKeyDirectory(directory)
            try events.create(WorkerRole.allCases)
            let parsed = try ParsedArguments(["--data-dir", data] + Self.production, spec: AccountWorker.spec, environment: [:])
            let keys = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: data), environment: [:])
            #expect(try keys.sealingKeyPair().publicKey == sealing.publicKey)
            #expect(try keys.codeSecret().tag([1]) == codes.tag([1]))
            #expect(try keys.eventSigner(.account).publicKey == SigningPublicKey.load(from: events.publicPath(of: .account)))
            #expect(try keys.eventVerifier(trusting: [.account, .image, .profile]).roles == [.account, .image, .profile])
            // A key missing there is still refused, naming where it was looked for, and never created.
            let error = #expect(throws: MissingKey.self) { try keys.signingKey() }
            #expect(error?.description.contains(directory + "/" + KeyFileName.signing) == true)
            #expect(!FileManager.default.fileExists(atPath: directory + "/" + KeyFileName.signing))
        }
    }

    @Test func embeddedCreatesKeysOnFirstStartInTheDataDirectory() throws {
        try withTemporaryDirectory { data in
            let parsed = try ParsedArguments(["--data-dir", data], spec: CodeDispatchWorker.spec, environment: [:])
            let keys = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: data), environment: [:])
            let first = try keys.codeSecret()
            #expect(try keys.codeSecret().tag([1]) == first.tag([1]))
            let path = data + "/keys/" + KeyFileName.codeSecret
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
            #expect(try FileManager.default.attributesOfItem(atPath: data + "/keys")[.posixPermissions] as? Int == 0o700)
            // The code dispatch worker holds the code secret alone.
            #expect(try FileManager.default.contentsOfDirectory(atPath: data + "/keys") == [KeyFileName.codeSecret])
        }
    }
}

/// The image worker (which parses untrusted images) and the profile worker hold none of the account worker's
/// keys: building their stacks opens every store they use, on an embedded data directory, without opening or
/// creating `<data>/keys` (their own event keys are `WorkerEventKeysTests`').
@Suite(.tags(.unit)) struct KeylessWorkersTests {
    @Test func imageAndProfileWorkersNeverTouchTheKeyDirectory() throws {
        try withTemporaryDirectory { data in
            let image = try ParsedArguments(["--data-dir", data], spec: ImageWorker.spec, environment: [:])
            _ = try ImageWorker.stack(image, dataDirectory: data, clock: Date.init)
            let profile = try ParsedArguments(["--data-dir", data], spec: ProfileWorker.spec, environment: [:])
            _ = try ProfileWorker.stack(profile, dataDirectory: data, clock: Date.init)
            #expect(FileManager.default.fileExists(atPath: data + "/profiles.sqlite"))
            #expect(FileManager.default.fileExists(atPath: data + "/objects"))
            #expect(!FileManager.default.fileExists(atPath: data + "/keys"))
        }
    }
}
