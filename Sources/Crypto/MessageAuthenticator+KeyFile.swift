extension MessageAuthenticator {
    /// The length of the secret key in a key file.
    static let secretLength = 32

    /// The authenticator whose 32-byte secret key is in the file at `path` (mode 0600); concurrent
    /// first callers all end up with the same key.
    public static func loadOrCreate(at path: String) throws -> MessageAuthenticator {
        if !KeyFile.exists(path) { _ = try KeyFile.createSecret(newSecret(), at: path) }
        return try load(from: path)
    }

    /// The authenticator whose secret key is in the file at `path`, which must exist.
    public static func load(from path: String) throws -> MessageAuthenticator {
        MessageAuthenticator(secret: try KeyFile.readSecret(at: path, count: secretLength))
    }

    /// Creates a new secret key file at `path`; throws if one is there already.
    public static func create(at path: String) throws -> MessageAuthenticator {
        let secret = newSecret()
        try KeyFile.createNewSecret(secret, at: path)
        return MessageAuthenticator(secret: secret)
    }

    /// The authenticator whose secret key is the standard base64 `text`, e.g. from an environment
    /// variable named `source`, which errors name instead of the value.
    public init(base64Secret text: String, source: String) throws {
        self.init(secret: try KeyFile.decodeSecret(Array(text.utf8), count: Self.secretLength, source: source))
    }

    private init(secret: SecretBytes) {
        var bytes = secret.withUnsafeBytes { Array($0) }
        defer { wipe(&bytes) }
        self.init(key: bytes)
    }

    private static func newSecret() -> SecretBytes {
        SecretBytes(count: secretLength) { $0.copyBytes(from: SecureRandom.bytes(secretLength)) }
    }
}
