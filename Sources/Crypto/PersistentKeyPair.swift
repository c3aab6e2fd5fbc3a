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
    static func readKeyFile(at path: String) throws -> Self {
        try Self(storedSecret: KeyFile.readSecret(at: path, count: storedSecretLength))
    }

    func writeKeyFiles(to path: String) throws {
        try KeyFile.writeSecret(storedSecret, to: path)
        try KeyFile.writePublic(publicKeyBytes, to: KeyFile.publicPath(for: path))
    }

    /// Reads the key at `path`, or generates and stores one if there is none; concurrent callers all end
    /// up with the same key. Rewrites `<path>.pub` if it is missing or stale.
    static func readOrCreateKeyFiles(at path: String) throws -> Self {
        let pair: Self
        if KeyFile.exists(path) {
            pair = try readKeyFile(at: path)
        } else {
            let generated = generate()
            pair = try KeyFile.createSecret(generated.storedSecret, at: path) ? generated : readKeyFile(at: path)
        }
        try KeyFile.writePublic(pair.publicKeyBytes, to: KeyFile.publicPath(for: path))
        return pair
    }
}
