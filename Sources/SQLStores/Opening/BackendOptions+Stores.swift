import Accounts
import Backends
import Domain

/// The account and profile stores an installation is configured with: PostgreSQL or SQLite by their URL, else the
/// embedded SQLite databases of the data directory.
extension BackendOptions {
    public func accountStore() throws -> any AccountStore {
        try accounts.map(Self.accountStore(at:)) ?? EmbeddedBackends(dataDirectory).accounts()
    }

    public func profileStore() throws -> any ProfileStore {
        try profiles.map(Self.profileStore(at:)) ?? EmbeddedBackends(dataDirectory).profiles()
    }

    /// The account store at `url`, created or migrated as needed.
    public static func accountStore(at url: String) throws -> any AccountStore {
        try accountChangeStore(at: url)
    }

    /// The profile store at `url`, created or migrated as needed.
    public static func profileStore(at url: String) throws -> any ProfileStore {
        try SQLProfileStore(database: database(at: url))
    }

    /// The SQL database at `url`: `postgres://…` or `sqlite://path`.
    static func database(at url: String) throws -> any SQLDatabase {
        let location = try StoreURL(url, accepting: [.postgres, .sqlite])
        return location.scheme == .postgres ? PostgresDatabase(url: url) : try SQLiteDatabase(path: location.path)
    }
}
