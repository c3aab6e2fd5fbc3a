internal import CSodium

/// Compares two byte strings in time that depends only on their lengths (`sodium_memcmp`).
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    Sodium.initialize()
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { a in
        b.withUnsafeBytes { b in sodium_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
    }
}

/// The SHA-256 digest of `bytes` (`crypto_hash_sha256`).
public func sha256(_ bytes: [UInt8]) -> [UInt8] {
    Sodium.initialize()
    var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_bytes()))
    _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
    return digest
}

/// The SHA-256 digest of `bytes` as lowercase hex.
public func sha256Hex(_ bytes: [UInt8]) -> String {
    hex(sha256(bytes))
}

/// Lowercase hex of `bytes` (`sodium_bin2hex`).
public func hex(_ bytes: [UInt8]) -> String {
    let capacity = bytes.count * 2 + 1
    return String(unsafeUninitializedCapacity: capacity) { text in
        text.withMemoryRebound(to: CChar.self) { chars in
            _ = sodium_bin2hex(chars.baseAddress!, capacity, bytes, bytes.count)
        }
        return capacity - 1
    }
}
