import Crypto
import Domain
import Foundation

/// The event signing keys of the worker roles in a key directory: `events-<role>.ed25519` holds a role's
/// current secret key (0600) and `events-<role>.ed25519.pub` its public key; during a rotation
/// `events-<role>.previous.pub` holds the public key it replaced, still accepted until it is retired. A blank
/// previous file is none (the systemd units' `SetCredential=` default for a `LoadCredential=` whose file is missing).
public struct EventKeyDirectory: Sendable {
    public let path: String

    public init(_ path: String) {
        self.path = path
    }

    /// The file name of `role`'s secret key.
    public static func secretFile(of role: WorkerRole) -> String { "events-\(role.rawValue).ed25519" }

    public func secretPath(of role: WorkerRole) -> String { path + "/" + Self.secretFile(of: role) }
    public func publicPath(of role: WorkerRole) -> String { secretPath(of: role) + ".pub" }
    public func previousPath(of role: WorkerRole) -> String { path + "/events-\(role.rawValue).previous.pub" }

    /// The public keys accepted from `role`: its current one, and the one it replaced while a rotation's
    /// overlap lasts. With `creatingMissing` (embedded mode only) a role without keys gets a new pair first.
    public func publicKeys(of role: WorkerRole, creatingMissing: Bool) throws -> [SigningPublicKey] {
        if creatingMissing, !FileManager.default.fileExists(atPath: publicPath(of: role)) {
            _ = try SigningKeyPair.loadOrCreate(at: secretPath(of: role))
        }
        return [try SigningPublicKey.load(from: publicPath(of: role))] + (try Self.previousKey(at: previousPath(of: role)).map { [$0] } ?? [])
    }

    /// The previous public key in the file at `path`: none when the file is missing or blank.
    private static func previousKey(at path: String) throws -> SigningPublicKey? {
        guard let contents = FileManager.default.contents(atPath: path),
              !contents.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") }) else { return nil }
        return try SigningPublicKey.load(from: path)
    }

    /// `role`'s accepted public keys as ``publicKeys(of:creatingMissing:)`` reads them now, re-read whenever a
    /// rotation replaces or retires one of its files (one `stat` of each per call), so a running worker accepts
    /// a rotated key at once and refuses a retired one.
    public func reloadingPublicKeys(of role: WorkerRole, creatingMissing: Bool) throws -> @Sendable () -> [SigningPublicKey] {
        _ = try publicKeys(of: role, creatingMissing: creatingMissing)
        let current = try ReloadingFile(path: publicPath(of: role), load: SigningPublicKey.load(from:))
        let previous = try ReloadingFile<SigningPublicKey?>(path: previousPath(of: role), load: Self.previousKey(at:))
        return { [current.current] + (previous.current.map { [$0] } ?? []) }
    }

    /// Creates a key pair for each of `roles` that has none.
    public func ensure(_ roles: [WorkerRole]) throws {
        for role in roles { _ = try SigningKeyPair.loadOrCreate(at: secretPath(of: role)) }
    }

    /// Creates a key pair for each of `roles`, refusing to replace an existing key.
    public func create(_ roles: [WorkerRole]) throws {
        for role in roles { _ = try SigningKeyPair.create(at: secretPath(of: role)) }
    }

    /// Replaces `role`'s key pair with a new one, keeping the old public key as the previous one (replacing
    /// any earlier previous key, which is thereby retired); returns the new public key. The new public key is
    /// written before the secret key, so running consumers sharing this directory accept the first event the
    /// running producer signs with it.
    public func rotate(_ role: WorkerRole) throws -> SigningPublicKey {
        let old = try SigningPublicKey.load(from: publicPath(of: role))
        try old.save(to: previousPath(of: role))
        let new = SigningKeyPair.generate()
        try new.publicKey.save(to: publicPath(of: role))
        try new.save(to: secretPath(of: role))
        return new.publicKey
    }

    /// Ends a rotation's overlap: `role`'s previous public key is no longer accepted. Returns whether there was one.
    public func retirePrevious(of role: WorkerRole) throws -> Bool {
        guard FileManager.default.fileExists(atPath: previousPath(of: role)) else { return false }
        try FileManager.default.removeItem(atPath: previousPath(of: role))
        return true
    }

    /// The variable public event keys may be given in instead of a directory.
    public static let publicKeysVariable = "REGISTRAR_EVENT_PUBLIC_KEYS"

    /// Parses `role=base64` entries separated by spaces, commas or newlines (a role may appear twice during a rotation).
    public static func publicKeys(parsing text: String) throws -> [WorkerRole: [SigningPublicKey]] {
        var keys: [WorkerRole: [SigningPublicKey]] = [:]
        for entry in text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" }) {
            let parts = entry.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let role = WorkerRole(rawValue: String(parts[0])),
                  let key = try? SigningPublicKey(base64: String(parts[1])) else {
                throw CryptoError.keyFile(path: "$" + publicKeysVariable, reason: "not role=base64 entries")
            }
            keys[role, default: []].append(key)
        }
        return keys
    }
}
