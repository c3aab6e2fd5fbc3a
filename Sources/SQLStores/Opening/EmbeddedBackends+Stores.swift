import Accounts
import Backends
import Domain

/// The embedded account and profile stores: SQLite databases in the data directory.
extension EmbeddedBackends {
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
}
