internal import CSodium

/// Base64 through libsodium's constant-time codec, which rejects whitespace, stray characters and non-zero padding bits.
struct Base64Codec {
    static let standard = Base64Codec(variant: sodium_base64_VARIANT_ORIGINAL)
    static let urlSafeUnpadded = Base64Codec(variant: sodium_base64_VARIANT_URLSAFE_NO_PADDING)

    let variant: Int32

    /// The number of characters `encode(_:into:)` writes for `count` bytes.
    func encodedLength(of count: Int) -> Int {
        sodium_base64_encoded_len(count, variant) - 1  // without the terminating NUL
    }

    /// Encodes `bytes` into `text`, which must hold `encodedLength(of: bytes.count) + 1` bytes (a NUL ends it).
    func encode(_ bytes: UnsafeRawBufferPointer, into text: UnsafeMutableRawBufferPointer) {
        Sodium.initialize()
        precondition(text.count > encodedLength(of: bytes.count))
        _ = sodium_bin2base64(
            text.baseAddress!.assumingMemoryBound(to: CChar.self), text.count,
            bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, variant)
    }

    func encode(_ bytes: [UInt8]) -> String {
        let length = encodedLength(of: bytes.count)
        return String(unsafeUninitializedCapacity: length + 1) { text in
            bytes.withUnsafeBytes { encode($0, into: UnsafeMutableRawBufferPointer(text)) }
            return length
        }
    }

    /// Decodes the characters in `text` into `buffer`; returns the number of bytes written,
    /// or nil if `text` is malformed or decodes to more than `buffer.count` bytes.
    func decode(_ text: UnsafeRawBufferPointer, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        Sodium.initialize()
        guard buffer.count > 0 else { return text.isEmpty ? 0 : nil }
        var written = 0
        let status = sodium_base642bin(
            buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count,
            text.baseAddress?.assumingMemoryBound(to: CChar.self), text.count, nil, &written, nil, variant)
        return status == 0 ? written : nil
    }

    func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { utf8 in
            var bytes = [UInt8](repeating: 0, count: utf8.count / 4 * 3 + 3)
            guard let count = bytes.withUnsafeMutableBytes({ decode(UnsafeRawBufferPointer(utf8), into: $0) }) else {
                return nil
            }
            bytes.removeLast(bytes.count - count)
            return bytes
        }
    }
}

/// Base64url without padding (RFC 4648 §5), as used by JWS and JWK.
public enum Base64URL {
    /// Encodes `bytes` as unpadded base64url.
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64Codec.urlSafeUnpadded.encode(bytes)
    }

    /// Decodes unpadded base64url, or returns nil if `text` is not strictly valid.
    public static func decode(_ text: String) -> [UInt8]? {
        Base64Codec.urlSafeUnpadded.decode(text)
    }
}
