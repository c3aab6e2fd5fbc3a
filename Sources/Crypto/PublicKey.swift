/// A public key kept as its bytes, of a length fixed by its kind, and read and written as standard base64 (`.pub` files).
public protocol PublicKey: Sendable, Hashable {
    /// The key bytes.
    var bytes: [UInt8] { get }
    /// Wraps key bytes; throws ``CryptoError/invalidKey`` for any length but its kind's.
    init(bytes: [UInt8]) throws
}

extension PublicKey {
    /// Decodes a key from standard base64.
    public init(base64: String) throws {
        try self.init(bytes: Base64Codec.standard.decode(base64) ?? [])
    }

    /// The key in standard base64, as in `.pub` files.
    public var base64: String { Base64Codec.standard.encode(bytes) }

    /// Reads a `.pub` file: one line of standard base64.
    public static func load(from path: String) throws -> Self {
        try Self(bytes: KeyFile.readPublic(at: path))
    }

    /// Writes the key to `path` as a `.pub` file (one line of standard base64, mode 0644), replacing any other key there.
    public func save(to path: String) throws {
        try KeyFile.writePublic(bytes, to: path)
    }
}
