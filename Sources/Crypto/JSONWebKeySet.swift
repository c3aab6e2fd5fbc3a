import Foundation

/// A JSON Web Key Set of Ed25519 keys (RFC 7517, RFC 8037), for verifiers of ``JSONWebToken``s:
/// `{"keys":[{"alg":"EdDSA","crv":"Ed25519","kid":…,"kty":"OKP","use":"sig","x":…},…]}`.
public struct JSONWebKeySet: Sendable, Equatable {
    /// One verification key and its `kid`.
    public struct Entry: Sendable, Equatable {
        public var keyID: String
        public var key: SigningPublicKey

        public init(keyID: String, key: SigningPublicKey) {
            self.keyID = keyID
            self.key = key
        }
    }

    /// The keys, the one signing now first.
    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// A set of `keys`, each under its own ``SigningPublicKey/keyID``.
    public init(_ keys: [SigningPublicKey]) {
        self.init(entries: keys.map { Entry(keyID: $0.keyID, key: $0) })
    }

    /// Parses a JWKS document. Keys of other types, curves, uses or algorithms are skipped (RFC 7517 §5);
    /// an Ed25519 key without a `kid` or with a malformed `x` makes the document invalid.
    public init(json: Data) throws {
        struct Document: Decodable { var keys: [Key] }
        struct Key: Decodable { var kty: String; var crv: String?; var x: String?; var kid: String?; var alg: String?; var use: String? }
        let document: Document
        do { document = try JSONDecoder().decode(Document.self, from: json) } catch { throw CryptoError.invalidKey }
        entries = try document.keys
            .filter { $0.kty == "OKP" && $0.crv == "Ed25519" && ($0.use ?? "sig") == "sig" && ($0.alg ?? "EdDSA") == "EdDSA" }
            .map { key in
                guard let kid = key.kid, let bytes = key.x.flatMap(Base64URL.decode) else { throw CryptoError.invalidKey }
                return Entry(keyID: kid, key: try SigningPublicKey(bytes: bytes))
            }
    }

    /// Reads the JWKS document at `path`.
    public init(contentsOf path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw CryptoError.keyFile(path: path, reason: "unreadable") }
        try self.init(json: data)
    }

    /// The key published under `keyID`, if any.
    public func key(id keyID: String) -> SigningPublicKey? {
        entries.first { $0.keyID == keyID }?.key
    }

    /// The document, keys in order.
    public var json: String {
        struct Document: Encodable { var keys: [Key] }
        struct Key: Encodable { var kty = "OKP", crv = "Ed25519", x: String, kid: String, alg = "EdDSA", use = "sig" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let document = Document(keys: entries.map { Key(x: Base64URL.encode($0.key.bytes), kid: $0.keyID) })
        return String(decoding: try! encoder.encode(document), as: UTF8.self)
    }
}
