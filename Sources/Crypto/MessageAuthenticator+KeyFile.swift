extension MessageAuthenticator {
    /// The authenticator whose 32-byte secret key is in the file at `path` (mode 0600); concurrent
    /// first callers all end up with the same key.
    public static func loadOrCreate(at path: String) throws -> MessageAuthenticator {
        if !KeyFile.exists(path) {
            _ = try KeyFile.createSecret(SecretBytes(count: 32) { $0.copyBytes(from: SecureRandom.bytes(32)) }, at: path)
        }
        let secret = try KeyFile.readSecret(at: path, count: 32)
        var bytes = secret.withUnsafeBytes { Array($0) }
        defer { wipe(&bytes) }
        return MessageAuthenticator(key: bytes)
    }
}
