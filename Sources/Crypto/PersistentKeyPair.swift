/// A key pair whose secret part can be stored in a key file (see ``KeyFile``).
protocol PersistentKeyPair: Sendable {
    /// The length of the secret stored in the file.
    static var storedSecretLength: Int { get }
    static func generate() -> Self
    init(storedSecret: SecretBytes) throws
    var storedSecret: SecretBytes { get }
    var publicKeyBytes: [UInt8] { get }
}

extension PersistentKeyPair {
    static func readKeyFile(at path: String, inPrivateDirectory: Bool = true) throws -> Self {
        try Self(storedSecret: KeyFile.readSecret(at: path, count: storedSecretLength, inPrivateDirectory: inPrivateDirectory))
    }

    /// Decodes the base64 secret `text` given by `source` (e.g. an environment variable's name, never its value).
    static func decodeSecret(_ text: String, source: String) throws -> Self {
        try Self(storedSecret: KeyFile.decodeSecret(Array(text.utf8), count: storedSecretLength, source: source))
    }

    /// Generates a key pair and stores it at `path` and `<path>.pub`, refusing to replace an existing key.
    static func createKeyFiles(at path: String) throws -> Self {
        let pair = generate()
        try KeyFile.createNewSecret(pair.storedSecret, at: path)
        try KeyFile.writePublic(pair.publicKeyBytes, to: KeyFile.publicPath(for: path))
        return pair
    }

    func writeKeyFiles(to path: String) throws {
        try KeyFile.writeSecret(storedSecret, to: path)
        try KeyFile.writePublic(publicKeyBytes, to: KeyFile.publicPath(for: path))
    }

    /// Reads the key at `path`, or generates and stores one if there is none; concurrent callers all end
    /// up with the same key. Rewrites `<path>.pub` if it is missing or stale; a key handed in on a read-only
    /// mount (a Kubernetes Secret, a directory mounted `:ro`) is used without its companion. See `KeyFile` for
    /// `inPrivateDirectory`.
    static func readOrCreateKeyFiles(at path: String, inPrivateDirectory: Bool = true) throws -> Self {
        if KeyFile.exists(path) {
            let pair = try readKeyFile(at: path, inPrivateDirectory: inPrivateDirectory)
            try? KeyFile.writePublic(pair.publicKeyBytes, to: KeyFile.publicPath(for: path))
            return pair
        }
        let generated = generate()
        let pair = try KeyFile.createSecret(generated.storedSecret, at: path, inPrivateDirectory: inPrivateDirectory)
            ? generated : readKeyFile(at: path, inPrivateDirectory: inPrivateDirectory)
        try KeyFile.writePublic(pair.publicKeyBytes, to: KeyFile.publicPath(for: path))
        return pair
    }
}
