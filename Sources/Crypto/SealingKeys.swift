internal import CSodium

/// An X25519 public key to which anyone can seal messages (`crypto_box_seal`) that only the
/// holder of the matching ``SealingKeyPair`` can open.
public struct SealingPublicKey: PublicKey {
    /// The 32 key bytes.
    public let bytes: [UInt8]

    /// Wraps 32 key bytes; throws ``CryptoError/invalidKey`` for any other length.
    public init(bytes: [UInt8]) throws {
        Sodium.initialize()
        guard bytes.count == crypto_box_publickeybytes() else { throw CryptoError.invalidKey }
        self.bytes = bytes
    }

    /// Encrypts `plaintext` anonymously for this key; the result is 48 bytes longer.
    public func seal(_ plaintext: [UInt8]) -> [UInt8] {
        var sealed = [UInt8](repeating: 0, count: plaintext.count + crypto_box_sealbytes())
        _ = crypto_box_seal(&sealed, plaintext, UInt64(plaintext.count), bytes)
        return sealed
    }
}

/// An X25519 key pair that opens sealed boxes. The secret key stays in memory zeroed on release.
public struct SealingKeyPair: Sendable, PersistentKeyPair {
    /// The key that senders seal to.
    public let publicKey: SealingPublicKey
    private let secretKey: SecretBytes

    /// A new random key pair.
    public static func generate() -> SealingKeyPair {
        Sodium.initialize()
        var publicBytes = [UInt8](repeating: 0, count: crypto_box_publickeybytes())
        let secretKey = SecretBytes(count: crypto_box_secretkeybytes()) {
            _ = crypto_box_keypair(&publicBytes, $0.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return SealingKeyPair(publicKey: try! SealingPublicKey(bytes: publicBytes), secret: secretKey)
    }

    init(publicKey: SealingPublicKey, secret secretKey: SecretBytes) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// Decrypts a box sealed to ``publicKey``; throws ``CryptoError/openFailed`` if it was altered,
    /// truncated or sealed to another key.
    public func open(_ sealed: [UInt8]) throws -> [UInt8] {
        guard sealed.count >= crypto_box_sealbytes() else { throw CryptoError.openFailed }
        var plaintext = [UInt8](repeating: 0, count: sealed.count - crypto_box_sealbytes())
        let status = secretKey.withUnsafePointer {
            crypto_box_seal_open(&plaintext, sealed, UInt64(sealed.count), publicKey.bytes, $0)
        }
        guard status == 0 else { throw CryptoError.openFailed }
        return plaintext
    }

    /// Reads the secret key file at `path` (one line of standard base64 of the 32-byte X25519 secret key).
    public static func load(from path: String) throws -> SealingKeyPair {
        try readKeyFile(at: path)
    }

    /// Writes the secret key to `path` (mode 0600) and the public key to `<path>.pub`, replacing both.
    public func save(to path: String) throws {
        try writeKeyFiles(to: path)
    }

    /// Loads the key pair at `path`, or atomically creates it (and `<path>.pub`) if absent.
    public static func loadOrCreate(at path: String) throws -> SealingKeyPair {
        try readOrCreateKeyFiles(at: path)
    }

    /// A user's reply key pair at `path` (`--reply-key-file`), loaded or created like `loadOrCreate(at:)`, in any
    /// existing directory: the file itself must be 0600 (a working directory is usually 0755, and that is fine).
    public static func loadOrCreateReplyKeys(at path: String) throws -> SealingKeyPair {
        try readOrCreateKeyFiles(at: path, inPrivateDirectory: false)
    }

    /// A user's reply key pair at `path`, which must exist and be 0600 (its directory is not checked).
    public static func loadReplyKeys(from path: String) throws -> SealingKeyPair {
        try readKeyFile(at: path, inPrivateDirectory: false)
    }

    /// Creates a new key pair at `path` and `<path>.pub`; throws if a key is there already.
    public static func create(at path: String) throws -> SealingKeyPair {
        try createKeyFiles(at: path)
    }

    /// The key pair whose secret (the 32-byte X25519 secret key) is the standard base64 `text`, e.g. from an environment
    /// variable named `source`, which errors name instead of the value.
    public init(base64Secret text: String, source: String) throws {
        self = try Self.decodeSecret(text, source: source)
    }

    // MARK: PersistentKeyPair

    static var storedSecretLength: Int { crypto_box_secretkeybytes() }

    init(storedSecret: SecretBytes) throws {
        var publicBytes = [UInt8](repeating: 0, count: crypto_box_publickeybytes())
        let status = storedSecret.withUnsafePointer { crypto_scalarmult_base(&publicBytes, $0) }
        guard status == 0 else { throw CryptoError.invalidKey }
        self.init(publicKey: try SealingPublicKey(bytes: publicBytes), secret: storedSecret)
    }

    var storedSecret: SecretBytes { secretKey }
    var publicKeyBytes: [UInt8] { publicKey.bytes }
}
