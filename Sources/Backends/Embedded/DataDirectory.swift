import Accounts
import Domain

/// The conventional layout of one data directory, shared by the workers of one installation.
public struct DataDirectory: Sendable, Equatable {
    public let path: String

    /// The data directory at `path` (0700: it holds databases), created with its store subdirectories as
    /// needed; refused when it or the outbox is open to group or others. `keys/` is left to the workers
    /// holding keys, which create it 0700.
    public init(_ path: String) throws(StoreError) {
        self.path = path
        try FileSystem.createPrivateDirectory(path)
        try FileSystem.createDirectory(objects)
        try FileSystem.createPrivateDirectory(outbox)
    }

    /// The layout of the data directory at `path`, creating and checking nothing (to see what exists).
    public init(layoutOf path: String) {
        self.path = path
    }

    /// The account store's database, which also keeps the workers' answers to requests.
    public var accountsDatabase: String { "\(path)/accounts.sqlite" }
    /// The profile store's database.
    public var profilesDatabase: String { "\(path)/profiles.sqlite" }
    /// The object store's root.
    public var objects: String { "\(path)/objects" }
    /// The outbox's directory.
    public var outbox: String { "\(path)/outbox" }
    /// The key files' directory (mode 0700), created by the first worker that creates a key.
    public var keys: String { "\(path)/keys" }
}
