internal import CSodium

/// Keys derived from a key pair's secret, which then serves as a master secret (e.g. the gateway's reply secret,
/// shared by its replicas): each subkey is BLAKE2b-256 (`crypto_generichash`) keyed with the 32-byte secret over a
/// label and a context, so subkeys of different labels or contexts are independent and none reveals the secret.
extension SealingKeyPair {
    /// The key pair of `context` (e.g. a request id): `crypto_box_seed_keypair` seeded with the subkey
    /// `reply-key`/`context`. The same secret and context give the same pair on any host.
    public func derivedKeyPair(for context: String) -> SealingKeyPair {
        let seed = subkey(label: "reply-key", context: context)
        var publicBytes = [UInt8](repeating: 0, count: crypto_box_publickeybytes())
        let secretKey = SecretBytes(count: crypto_box_secretkeybytes()) { secret in
            seed.withUnsafePointer { _ = crypto_box_seed_keypair(&publicBytes, secret.baseAddress!.assumingMemoryBound(to: UInt8.self), $0) }
        }
        return SealingKeyPair(publicKey: try! SealingPublicKey(bytes: publicBytes), secret: secretKey)
    }

    /// An HMAC-SHA-256 authenticator keyed with the subkey `label` (e.g. to make request ids no one else can compute).
    public func authenticator(for label: String) -> MessageAuthenticator {
        let key = subkey(label: label, context: "")
        return key.withUnsafeBytes { MessageAuthenticator(key: Array($0)) }
    }

    /// BLAKE2b-256 keyed with this pair's secret over `registrar-subkey`, `label` and `context`, each length-prefixed.
    private func subkey(label: String, context: String) -> SecretBytes {
        var message: [UInt8] = []
        for part in ["registrar-subkey", label, context].map({ Array($0.utf8) }) {
            message += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: UInt32(part.count) >> $0) } + part
        }
        return SecretBytes(count: crypto_generichash_bytes()) { out in
            storedSecret.withUnsafePointer { key in
                _ = crypto_generichash(out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, message, UInt64(message.count),
                                       key, storedSecret.count)
            }
        }
    }
}
