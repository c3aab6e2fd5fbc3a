#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The signing key pair in the key file at `path`, re-read whenever the file is replaced (as
/// `registrar keys rotate-signing` does, by rename), so a running worker signs with the new key from its
/// next token on. Checking costs one `stat` per use. If a replacement cannot be read, the last key read
/// keeps signing (it still verifies until it is retired) and the read is tried again at the next use.
public final class SigningKeyFile: Sendable {
    private struct Identity: Equatable {
        var device: UInt64, inode: UInt64, seconds: Int, nanoseconds: Int
    }

    public let path: String
    private let state: Mutex<(identity: Identity?, pair: SigningKeyPair)>

    /// Reads the key at `path`; throws if it cannot be read now.
    public init(path: String) throws {
        self.path = path
        let identity = Self.identity(of: path)
        state = Mutex((identity, try SigningKeyPair.load(from: path)))
    }

    /// The key pair the file holds now.
    public var current: SigningKeyPair {
        state.withLock { state in
            let identity = Self.identity(of: path)
            if identity != state.identity, let pair = try? SigningKeyPair.load(from: path) {
                state = (identity, pair)
            }
            return state.pair
        }
    }

    private static func identity(of path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                        seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
    }
}
