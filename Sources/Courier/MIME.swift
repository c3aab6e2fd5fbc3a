/// The MIME encodings a rendered `EmailMessage` needs.
enum MIME {
    /// Quoted-printable (RFC 2045 §6.7) of UTF-8 text, with CRLF line ends and soft breaks keeping lines ≤ 76 characters.
    static func quotedPrintable(_ text: String) -> String {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        return lines.map { line in
            let bytes = Array(line.utf8)
            var encoded: [String] = []
            for (index, byte) in bytes.enumerated() {
                let isLast = index == bytes.count - 1
                let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")) || (byte == 0x20 && !isLast)
                encoded.append(literal ? String(UnicodeScalar(byte)) : "=" + hex(byte))
            }
            var output = ""
            var width = 0
            for token in encoded {
                if width + token.count > 75 {
                    output += "=\r\n"
                    width = 0
                }
                output += token
                width += token.count
            }
            return output
        }.joined(separator: "\r\n")
    }

    /// The text as is when it is printable ASCII, else one RFC 2047 `=?UTF-8?B?…?=` encoded word.
    static func encodedWord(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        return "=?UTF-8?B?" + base64(Array(text.utf8)) + "?="
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var output = ""
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = Array(bytes[start..<min(start + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for index in 0..<4 {
                output.append(index <= chunk.count ? alphabet[(value >> (18 - 6 * index)) & 0x3F] : "=")
            }
        }
        return output
    }
}
