#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `fd00::/8`; a bare address is a single host).
public struct AddressRange: Sendable, Equatable {
    private let network: [UInt8]
    private let prefixLength: Int

    /// Parses `text`; nil when it is not an address with an optional prefix length that fits it.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let address = Self.bytes(of: parts[0]) else { return nil }
        let length = parts.count == 2 ? Int(parts[1]) : address.count * 8
        guard let length, (0...address.count * 8).contains(length) else { return nil }
        network = address
        prefixLength = length
    }

    /// Parses a comma-separated list; throws naming the first entry that is not a range.
    public static func list(_ text: String) throws(GatewayError) -> [AddressRange] {
        try text.split(separator: ",").map { entry throws(GatewayError) in
            let trimmed = entry.trimmingCharacters(in: .whitespaces)
            guard let range = AddressRange(trimmed) else { throw GatewayError("not an address or CIDR range: \(trimmed)") }
            return range
        }
    }

    /// Whether `address` (numeric) is in this range.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address), bytes.count == network.count else { return false }
        var left = prefixLength
        for (a, b) in zip(bytes, network) where left > 0 {
            let bits = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if a & mask != b & mask { return false }
            left -= bits
        }
        return true
    }

    /// The 4 or 16 bytes of a numeric address (an IPv4-mapped IPv6 address as its IPv4 bytes); nil for anything else.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        return bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] ? Array(bytes.suffix(4)) : bytes
    }
}
