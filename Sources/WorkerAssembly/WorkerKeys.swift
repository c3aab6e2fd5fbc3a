import Backends
import Crypto
import CryptoAdapters
import Foundation
import Support

/// The keys one worker holds, and where it finds them. Each key comes from its environment variable
/// (standard base64, for mounted secrets; never an option, so never in argv), else its file option,
/// else `--keys-dir` (default `<data>/keys`). In production mode (``BackendOptions/isProduction``) that is all:
/// a key found nowhere stops the worker, and none is ever created. In embedded mode a missing key is created
/// in the key directory.
package struct WorkerKeys {
    /// One key: its file name in a key directory, its file option and its environment variable.
    struct Key {
        var what: String
        var file: String
        var option: String
        var variable: String
    }

    static let sealing = Key(what: "sealing key", file: KeyFileName.sealing, option: "sealing-key-file",
                             variable: "REGISTRAR_SEALING_KEY")
    static let signing = Key(what: "access-token signing key", file: KeyFileName.signing, option: "signing-key-file",
                             variable: "REGISTRAR_SIGNING_KEY")
    static let codeSecret = Key(what: "code secret", file: KeyFileName.codeSecret, option: "code-secret-file",
                                variable: "REGISTRAR_CODE_SECRET")

    /// The options of a worker holding `keys` (besides `keys-dir`, which every worker has: ``eventSpecs``).
    static func specs(_ keys: [Key]) -> [CommandSpec.Option] {
        keys.map { .value($0.option, "File holding the \($0.what) (or $\($0.variable) as base64)", environment: $0.variable + "_FILE") }
    }

    let parsed: ParsedArguments
    let stores: BackendOptions
    let environment: [String: String]

    package init(_ parsed: ParsedArguments, stores: BackendOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.parsed = parsed
        self.stores = stores
        self.environment = environment
    }

    /// The key directory: `--keys-dir`, or `<data>/keys` (in production mode too, where a key must be there).
    var directory: String { parsed.value("keys-dir") ?? EmbeddedBackends(stores.dataDirectory).keysDirectory }

    package func sealingKeyPair() throws -> SealingKeyPair {
        try load(Self.sealing, decode: SealingKeyPair.init(base64Secret:source:), read: SealingKeyPair.load(from:),
                 readOrCreate: SealingKeyPair.loadOrCreate(at:))
    }

    /// The access-token signing key: fixed when given by environment; else its key file, re-read when it is
    /// replaced (`registrar keys rotate-signing`), so a running worker signs with a rotated key at once.
    package func signingKey() throws -> @Sendable () -> SigningKeyPair {
        try reloadingSigningKey(Self.signing)
    }

    /// The Ed25519 key `key`: fixed when given by environment; else its key file, re-read when it is replaced.
    func reloadingSigningKey(_ key: Key) throws -> @Sendable () -> SigningKeyPair {
        let reloading = { (path: String) throws -> @Sendable () -> SigningKeyPair in
            let file = try SigningKeyFile(path: path)
            return { file.current }
        }
        return try load(key, decode: { text, source in
            let pair = try SigningKeyPair(base64Secret: text, source: source)
            return { pair }
        }, read: reloading, readOrCreate: { path in
            _ = try SigningKeyPair.loadOrCreate(at: path)
            return try reloading(path)
        })
    }

    /// The signing key set of the key directory, with its JWKS.
    package var signingKeySet: SigningKeySet {
        SigningKeySet(secretPath: directory + "/" + KeyFileName.signing, jwksPath: directory + "/" + KeyFileName.jwks)
    }

    /// The verifier of the access tokens `signingKey` signs: by the key directory's JWKS (re-read when rewritten,
    /// so retired keys verify until dropped) when there is one, else by the current signing key alone.
    package func accessTokenVerifier(signingKey: @escaping @Sendable () -> SigningKeyPair, audience: TokenAudience) throws -> AccessTokenVerifier {
        if FileManager.default.fileExists(atPath: signingKeySet.jwksPath) {
            return try AccessTokenVerifier(jwksAt: signingKeySet.jwksPath, audience: audience)
        }
        var verifier = AccessTokenVerifier(keys: JSONWebKeySet([]), audience: audience)
        verifier.keys = { JSONWebKeySet([signingKey().publicKey]) }
        return verifier
    }

    package func codeSecret() throws -> MessageAuthenticator {
        try load(Self.codeSecret, decode: MessageAuthenticator.init(base64Secret:source:), read: MessageAuthenticator.load(from:),
                 readOrCreate: MessageAuthenticator.loadOrCreate(at:))
    }

    func load<K>(_ key: Key, decode: (String, String) throws -> K, read: (String) throws -> K,
                         readOrCreate: (String) throws -> K) throws -> K {
        if let text = environment[key.variable], !text.isEmpty { return try decode(text, key.variable) }
        if let file = parsed.value(key.option) { return try read(file) }
        let path = directory + "/" + key.file
        guard stores.isProduction else { return try readOrCreate(path) }
        guard parsed.value("keys-dir") != nil || FileManager.default.fileExists(atPath: path) else {
            throw MissingKey(key: key, looked: path)
        }
        return try read(path)
    }
}

/// A key a worker in production mode was not given, and did not find where `--keys-dir` defaults to.
struct MissingKey: Error, CustomStringConvertible {
    var key: WorkerKeys.Key
    /// The default key directory's file looked for.
    var looked: String

    var description: String {
        "no \(key.what): in production mode (a PostgreSQL, S3 or SMTP store is configured) keys are never created, and \(looked) "
            + "does not exist; give --\(key.option), --keys-dir or $\(key.variable) (base64); `registrar keys --keys-dir DIR` creates a set"
    }
}
