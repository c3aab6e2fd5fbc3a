import Accounts
import EmbeddedStores
import Domain
import SQLiteDriver
import SQLStores

/// The stores of one installation on the embedded defaults: SQLite databases and files, all in one
/// data directory. Each accessor opens the store; callers keep what they open.
public struct EmbeddedBackends: Sendable {
    public let directory: String

    public init(_ directory: String) {
        self.directory = directory
    }

    public func accounts() throws -> any OperatorStore {
        try SQLAccountStore(database: accountsDatabase())
    }

    public func profiles() throws -> any ProfileStore {
        try SQLProfileStore(database: profilesDatabase())
    }

    /// The profile database, `<data>/profiles.sqlite`.
    func profilesDatabase() throws -> any SQLDatabase {
        try SQLiteDatabase(path: try layout().profilesDatabase)
    }

    /// The account database, `<data>/accounts.sqlite`, which also keeps the codes, the tokens and the
    /// answer memo (the accounts' schema migrated first: a file from before it held other schemas counts
    /// the accounts' version alone). The code and token files of an older data directory are imported once.
    func accountsDatabase() throws -> any SQLDatabase {
        let database = try SQLiteDatabase(path: try layout().accountsDatabase)
        try importSeparateStores(into: database)
        return database
    }

    public func objects() throws -> any ObjectStore {
        try FileObjectStore(root: try layout().objects)
    }

    /// The key files' directory, `<data>/keys` (0700, created with the first key).
    public var keysDirectory: String { directory + "/keys" }
    /// The path of the account worker's sealing key (secret; 0600), creating the data directory.
    public func sealingKey() throws -> String { try layout().keys + "/" + KeyFileName.sealing }
    /// The path of the public half of the sealing key, which clients seal passwords to.
    public var sealingPublicKey: String { keysDirectory + "/" + KeyFileName.sealing + ".pub" }

    private func layout() throws -> DataDirectory { try DataDirectory(directory) }
}
