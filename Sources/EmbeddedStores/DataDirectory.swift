import Domain
import Registration

/// The conventional layout of one data directory, shared by the workers of one installation.
public struct DataDirectory: Sendable, Equatable {
    public let path: String

    /// The data directory at `path`, created with its subdirectories as needed (`keys/` private to its owner).
    public init(_ path: String) throws(StoreError) {
        self.path = path
        try FileSystem.createDirectory(path)
        for directory in [objects, outbox] { try FileSystem.createDirectory(directory) }
        try FileSystem.createDirectory(keys, mode: 0o700)
    }

    /// The account store's database, which also keeps the workers' answers to requests.
    public var accountsDatabase: String { "\(path)/accounts.sqlite" }
    /// The profile store's database.
    public var profilesDatabase: String { "\(path)/profiles.sqlite" }
    /// The object store's root.
    public var objects: String { "\(path)/objects" }
    /// The outbox's directory.
    public var outbox: String { "\(path)/outbox" }
    /// The key files' directory (mode 0700).
    public var keys: String { "\(path)/keys" }
}
