internal import CSodium

/// An Ed25519 public key that checks signatures of the matching ``SigningKeyPair``.
public struct SigningPublicKey: PublicKey {
    /// The 32 key bytes.
    public let bytes: [UInt8]

    /// Wraps 32 key bytes; throws ``CryptoError/invalidKey`` for any other length.
    public init(bytes: [UInt8]) throws {
        Sodium.initialize()
        guard bytes.count == crypto_sign_publickeybytes() else { throw CryptoError.invalidKey }
        self.bytes = bytes
    }

    /// The key's `kid` in a JWKS: the first 16 hex digits of its SHA-256.
    public var keyID: String { String(sha256Hex(bytes).prefix(16)) }

    /// Whether `signature` is a valid Ed25519 signature of `message` by this key.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == crypto_sign_bytes() else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), bytes) == 0
    }
}

/// An Ed25519 key pair for signatures (`crypto_sign_detached`), e.g. of tokens.
public struct SigningKeyPair: Sendable, PersistentKeyPair {
    /// The key that verifiers use.
    public let publicKey: SigningPublicKey
    /// libsodium's 64-byte secret key: the 32-byte seed followed by the public key.
    private let secretKey: SecretBytes

    /// A new random key pair.
    public static func generate() -> SigningKeyPair {
        Sodium.initialize()
        let seed = SecretBytes(count: crypto_sign_seedbytes()) {
            randombytes_buf($0.baseAddress!, $0.count)
        }
        return try! SigningKeyPair(storedSecret: seed)
    }

    /// The 64-byte Ed25519 signature of `message`.
    public func sign(_ message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: crypto_sign_bytes())
        secretKey.withUnsafePointer {
            _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), $0)
        }
        return signature
    }

    /// Reads the secret key file at `path` (one line of standard base64 of the 32-byte Ed25519 seed).
    public static func load(from path: String) throws -> SigningKeyPair {
        try readKeyFile(at: path)
    }

    /// Writes the seed to `path` (mode 0600) and the public key to `<path>.pub`, replacing both.
    public func save(to path: String) throws {
        try writeKeyFiles(to: path)
    }

    /// Loads the key pair at `path`, or atomically creates it (and `<path>.pub`) if absent.
    public static func loadOrCreate(at path: String) throws -> SigningKeyPair {
        try readOrCreateKeyFiles(at: path)
    }

    /// Creates a new key pair at `path` and `<path>.pub`; throws if a key is there already.
    public static func create(at path: String) throws -> SigningKeyPair {
        try createKeyFiles(at: path)
    }

    /// The key pair whose secret (the 32-byte Ed25519 seed) is the standard base64 `text`, e.g. from an environment
    /// variable named `source`, which errors name instead of the value.
    public init(base64Secret text: String, source: String) throws {
        self = try Self.decodeSecret(text, source: source)
    }

    // MARK: PersistentKeyPair

    static var storedSecretLength: Int { crypto_sign_seedbytes() }

    /// Derives the key pair from its 32-byte seed.
    init(storedSecret seed: SecretBytes) throws {
        Sodium.initialize()
        var publicBytes = [UInt8](repeating: 0, count: crypto_sign_publickeybytes())
        secretKey = seed.withUnsafePointer { seed in
            SecretBytes(count: crypto_sign_secretkeybytes()) {
                _ = crypto_sign_seed_keypair(&publicBytes, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), seed)
            }
        }
        publicKey = try SigningPublicKey(bytes: publicBytes)
    }

    var storedSecret: SecretBytes {
        SecretBytes(count: crypto_sign_seedbytes()) { seed in
            secretKey.withUnsafeBytes { seed.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(seed.count))) }
        }
    }

    var publicKeyBytes: [UInt8] { publicKey.bytes }
}
