internal import CSodium
import Dispatch
import Foundation
import Support

/// Argon2id password hashing (`crypto_pwhash_str_alg`), with OWASP's default cost: 19 MiB, 2 passes, 1 lane.
///
/// The encoded hash (`$argon2id$v=19$m=…,t=…,p=1$salt$hash`) carries its own salt and parameters.
/// Passwords are hashed as UTF-8 after Unicode NFKC normalisation (NIST SP 800-63B §5.1.1.2), so the
/// same password typed on different keyboards or systems matches.
public struct PasswordHasher: Sendable {
    /// Passes over memory (argon2 `t`).
    public let opsLimit: UInt64
    /// Memory in bytes (argon2 `m`, rounded down to KiB by libsodium).
    public let memoryLimit: Int

    /// Creates a hasher; the limits must be within libsodium's argon2id bounds.
    public init(opsLimit: UInt64 = 2, memoryLimit: Int = 19 * 1024 * 1024) {
        Sodium.initialize()
        precondition(opsLimit >= UInt64(crypto_pwhash_argon2id_opslimit_min()), "opsLimit below the argon2id minimum")
        precondition(memoryLimit >= crypto_pwhash_argon2id_memlimit_min(), "memoryLimit below the argon2id minimum")
        self.opsLimit = opsLimit
        self.memoryLimit = memoryLimit
        for operation in ["hash", "verify"] { Self.durations.declare(operation) }
    }

    private static let durations = MetricsRegistry.shared.histogram(
        "registrar_argon2id_duration_seconds", "argon2id work, by operation (hash, verify)", labels: ["operation"],
        buckets: [0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28])

    /// At most one argon2id computation per core at a time in this process: each is memory-bound over its own
    /// 19 MiB, and more of them than cores (a worker handles six partitions at once) only evict each other
    /// from the caches — the same hashes took a third more CPU each — and hold more memory.
    private static let cores = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount))

    private static func onACore<T>(_ work: () throws -> T) rethrows -> T {
        cores.wait()
        defer { cores.signal() }
        return try work()
    }

    /// Hashes `password` with a fresh random salt; throws ``CryptoError/hashingFailed`` if memory runs out.
    public func hash(_ password: String) throws -> String {
        try Self.onACore { try Self.durations.time("hash") { try unmeasuredHash(password) } }
    }

    private func unmeasuredHash(_ password: String) throws -> String {
        var secret = Self.normalized(password)
        defer { wipe(&secret) }
        var encoded = [CChar](repeating: 0, count: crypto_pwhash_strbytes())
        let status = crypto_pwhash_str_alg(
            &encoded, secret, UInt64(secret.count), opsLimit, memoryLimit, crypto_pwhash_alg_argon2id13())
        guard status == 0 else { throw CryptoError.hashingFailed }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches `encodedHash`; false for malformed hashes. Takes the time of one hash.
    public func verify(_ password: String, against encodedHash: String) -> Bool {
        Self.onACore {
            Self.durations.time("verify") {
                var secret = Self.normalized(password)
                defer { wipe(&secret) }
                return crypto_pwhash_str_verify(encodedHash, secret, UInt64(secret.count)) == 0
            }
        }
    }

    /// Whether `encodedHash` was made with other parameters or another algorithm, so it should be replaced
    /// by a new hash at the next successful sign-in.
    public func needsRehash(_ encodedHash: String) -> Bool {
        crypto_pwhash_str_needs_rehash(encodedHash, opsLimit, memoryLimit) != 0
    }

    private static func normalized(_ password: String) -> [UInt8] {
        Array(password.precomposedStringWithCompatibilityMapping.utf8)
    }
}
