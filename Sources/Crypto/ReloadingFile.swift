#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// What a file holds, re-read whenever the file is replaced (a new inode or modification time), e.g. a
/// signing key after `registrar keys rotate-signing` or the JWKS it rewrites. Checking costs one `stat` per
/// use. If a replacement cannot be read, the last value read stays and the read is tried again at the next use.
public final class ReloadingFile<Value: Sendable>: Sendable {
    private struct Identity: Equatable {
        var device: UInt64, inode: UInt64, seconds: Int, nanoseconds: Int
    }

    public let path: String
    private let load: @Sendable (String) throws -> Value
    private let state: Mutex<(identity: Identity?, value: Value)>

    /// Reads the file at `path` with `load`; throws if it cannot be read now.
    public init(path: String, load: @escaping @Sendable (String) throws -> Value) throws {
        self.path = path
        self.load = load
        let identity = Self.identity(of: path)
        state = Mutex((identity, try load(path)))
    }

    /// What the file holds now.
    public var current: Value {
        state.withLock { state in
            let identity = Self.identity(of: path)
            if identity != state.identity, let value = try? load(path) {
                state = (identity, value)
            }
            return state.value
        }
    }

    private static func identity(of path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                        seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
    }
}

/// The signing key pair in a key file, re-read when the file is replaced, so a running worker signs with a
/// rotated key from its next token on (the old key still verifies until it is retired).
public typealias SigningKeyFile = ReloadingFile<SigningKeyPair>

extension ReloadingFile where Value == SigningKeyPair {
    public convenience init(path: String) throws {
        try self.init(path: path, load: SigningKeyPair.load(from:))
    }
}

/// A JWKS document, re-read when it is rewritten (by a rotation), so a verifier knows a new key before it signs.
public typealias JSONWebKeySetFile = ReloadingFile<JSONWebKeySet>

extension ReloadingFile where Value == JSONWebKeySet {
    public convenience init(path: String) throws {
        try self.init(path: path, load: JSONWebKeySet.init(contentsOf:))
    }
}
