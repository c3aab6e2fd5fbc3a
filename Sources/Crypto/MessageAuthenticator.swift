internal import CSodium

/// HMAC-SHA-256 (`crypto_auth_hmacsha256`), e.g. to store one-time codes or to sign opaque identifiers.
public struct MessageAuthenticator: Sendable {
    /// The length in bytes of a tag.
    public static let tagLength = 32

    private let key: SecretBytes

    /// Creates an authenticator; `key` must not be empty and should be 32 random bytes.
    public init(key: [UInt8]) {
        precondition(!key.isEmpty, "an HMAC key must not be empty")
        Sodium.initialize()
        self.key = SecretBytes(count: key.count) { $0.copyBytes(from: key) }
    }

    /// The 32-byte HMAC-SHA-256 tag of `message`.
    public func tag(_ message: [UInt8]) -> [UInt8] {
        var state = crypto_auth_hmacsha256_state()
        defer { withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) } }
        var tag = [UInt8](repeating: 0, count: Self.tagLength)
        key.withUnsafePointer { _ = crypto_auth_hmacsha256_init(&state, $0, key.count) }
        _ = crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&state, &tag)
        return tag
    }

    /// A `digits`-digit decimal code derived from the tag of `message` by the dynamic truncation of
    /// HOTP (RFC 4226 §5.3, with HMAC-SHA-256 as RFC 6238 allows); leading zeros included.
    public func decimalCode(for message: [UInt8], digits: Int) -> String {
        precondition((1...9).contains(digits), "HOTP codes have 1 to 9 digits")
        let tag = tag(message)
        let offset = Int(tag[Self.tagLength - 1] & 0x0F)
        let binary = tag[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
        let modulus = (0..<digits).reduce(UInt32(1)) { product, _ in product * 10 }
        let code = String(binary % modulus)
        return String(repeating: "0", count: digits - code.count) + code
    }

    /// Whether `tag` is the tag of `message`, compared in constant time.
    public func verify(_ tag: [UInt8], for message: [UInt8]) -> Bool {
        constantTimeEquals(self.tag(message), tag)
    }
}
