/// Percent-encoding as AWS Signature Version 4 canonicalises it: every byte but the unreserved
/// `A–Z a–z 0–9 - _ . ~` is encoded, with upper-case hex.
enum S3Encoding {
    /// `text` encoded for a query string (a `/` too).
    static func query(_ text: String) -> String {
        encode(text, keeping: [])
    }

    /// An object key encoded for a URL path: `/` separates segments and stays.
    static func path(_ key: String) -> String {
        encode(key, keeping: [UInt8(ascii: "/")])
    }

    private static func encode(_ text: String, keeping extra: Set<UInt8>) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if isUnreserved(byte) || extra.contains(byte) {
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
