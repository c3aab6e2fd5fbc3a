import Foundation

/// The access-token signing keys of one key directory: the current key pair at `secretPath` (public half in
/// `<secretPath>.pub`), which signs; the public halves of earlier keys in `<secretPath>.retired`, which still
/// verify the tokens they signed until those expire; and the JWKS at `jwksPath` publishing all of them, the
/// current key first. A retired key's secret is gone at once: it can verify, never sign.
public struct SigningKeySet: Sendable {
    /// A key that signed until `retiredAt` (seconds since 1970).
    public struct RetiredKey: Codable, Sendable, Equatable {
        public var kid: String
        /// The public key, standard base64.
        public var publicKey: String
        public var retiredAt: Double

        public init(kid: String, publicKey: String, retiredAt: Double) {
            self.kid = kid
            self.publicKey = publicKey
            self.retiredAt = retiredAt
        }
    }

    public let secretPath: String
    public let jwksPath: String
    private var retiredPath: String { secretPath + ".retired" }

    public init(secretPath: String, jwksPath: String) {
        self.secretPath = secretPath
        self.jwksPath = jwksPath
    }

    /// Creates the first signing key and the JWKS; throws if a key is there already.
    public func create() throws -> SigningKeyPair {
        let pair = try SigningKeyPair.create(at: secretPath)
        try publish(current: pair.publicKey)
        return pair
    }

    /// Loads the current key, or creates the first one, and makes sure the JWKS lists it.
    public func loadOrCreate() throws -> SigningKeyPair {
        let pair = try SigningKeyPair.loadOrCreate(at: secretPath)
        try publish(current: pair.publicKey)
        return pair
    }

    /// Makes a new current key: the old one is retired at `now` (its secret replaced, its public key kept
    /// in the JWKS). The JWKS lists the new key before it signs, so a verifier that re-reads the JWKS on
    /// an unknown `kid` never refuses a new token. Returns the new key pair and the retired key.
    public func rotate(now: Date) throws -> (current: SigningKeyPair, retired: RetiredKey) {
        let old = try SigningKeyPair.load(from: secretPath).publicKey
        let new = SigningKeyPair.generate()
        let retired = RetiredKey(kid: old.keyID, publicKey: old.base64, retiredAt: now.timeIntervalSince1970)
        try write(retired: try self.retired().filter { $0.kid != old.keyID } + [retired])
        try publish(current: new.publicKey)
        try new.save(to: secretPath)
        return (new, retired)
    }

    /// Drops every retired key whose tokens have all expired at `now` (it was retired more than
    /// `tokenLifetime` seconds before) from the set and the JWKS; returns the ones dropped.
    @discardableResult
    public func retire(now: Date, tokenLifetime: TimeInterval) throws -> [RetiredKey] {
        let cutoff = now.timeIntervalSince1970 - tokenLifetime
        let all = try retired()
        try write(retired: all.filter { $0.retiredAt >= cutoff })
        try publish(current: try SigningPublicKey.load(from: KeyFile.publicPath(for: secretPath)))
        return all.filter { $0.retiredAt < cutoff }
    }

    /// The retired keys still verifying, oldest first.
    public func retired() throws -> [RetiredKey] {
        guard let data = FileManager.default.contents(atPath: retiredPath) else { return [] }
        do { return try JSONDecoder().decode([RetiredKey].self, from: data) } catch {
            throw CryptoError.keyFile(path: retiredPath, reason: "not a list of retired keys")
        }
    }

    /// The keys verifiers accept: `current`, then the retired ones, newest first.
    public func verificationKeys(current: SigningPublicKey) throws -> JSONWebKeySet {
        JSONWebKeySet([current] + (try retired().reversed().filter { $0.kid != current.keyID }.map {
            try SigningPublicKey(base64: $0.publicKey)
        }))
    }

    /// Writes the JWKS of `current` and the retired keys, unless the file holds exactly that already (a worker
    /// restarted on a full or read-only disk writes nothing); a new one replaces the old by a rename, so readers
    /// never see a partial file. Returns whether it wrote.
    @discardableResult
    public func publish(current: SigningPublicKey) throws -> Bool {
        let json = Data(try verificationKeys(current: current).json.utf8)
        if FileManager.default.contents(atPath: jwksPath) == json { return false }
        try json.write(to: URL(fileURLWithPath: jwksPath), options: .atomic)
        return true
    }

    private func write(retired: [RetiredKey]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(retired).write(to: URL(fileURLWithPath: retiredPath), options: .atomic)
    }
}
