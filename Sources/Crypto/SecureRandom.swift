internal import CSodium
import Foundation

/// Unpredictable values from the operating system's CSPRNG (`randombytes`).
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        Sodium.initialize()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// A random (version 4, RFC 9562) UUID.
    public static func uuid() -> UUID {
        var b = bytes(16)
        b[6] = (b[6] & 0x0F) | 0x40  // version 4
        b[8] = (b[8] & 0x3F) | 0x80  // variant 10
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// A URL-safe token carrying `bytes` random bytes, as unpadded base64url.
    public static func token(bytes count: Int) -> String {
        Base64URL.encode(bytes(count))
    }
}
