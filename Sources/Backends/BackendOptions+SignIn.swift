import AccountChanges
import Domain
import EmbeddedStores
import PostgresStores
import SignIn
import Support
import Verification

/// The stores of sign-in: the account store with sign-in failures and account changes, and the code
/// and token stores, which follow the account store: in its database when that is PostgreSQL,
/// otherwise embedded in the data directory.
extension BackendOptions {
    /// The account store's option alone, for workers that need only the stores following it.
    public static let accountsSpecs = specs.filter { $0.name == "accounts" }

    /// The account store with sign-in failures and account changes.
    public func accountChangeStore() throws -> any AccountChangeStore {
        try accounts.map(Self.accountChangeStore(at:)) ?? EmbeddedBackends(dataDirectory).accounts()
    }

    /// The code store: in the accounts database when that is PostgreSQL, else `<data-dir>/codes.sqlite`.
    public func codeStore() throws -> any CodeStore {
        try postgresAccounts().map(Self.codeStore(at:)) ?? EmbeddedBackends(dataDirectory).codes()
    }

    /// The token store: in the accounts database when that is PostgreSQL, else `<data-dir>/tokens.sqlite`.
    public func tokenStore() throws -> any TokenStore {
        try postgresAccounts().map(Self.tokenStore(at:)) ?? EmbeddedBackends(dataDirectory).tokens()
    }

    /// The account store at `url` (`postgres://…` or `sqlite://path`), created or migrated as needed.
    public static func accountChangeStore(at url: String) throws -> any AccountChangeStore {
        try store(at: url, postgres: PostgresAccountStore.init(database:), sqlite: SQLiteAccountStore.init(path:))
    }

    /// The code store at `url` (`postgres://…` or `sqlite://path`), created or migrated as needed.
    public static func codeStore(at url: String) throws -> any CodeStore {
        try store(at: url, postgres: PostgresCodeStore.init(database:), sqlite: SQLiteCodeStore.init(path:))
    }

    /// The token store at `url` (`postgres://…` or `sqlite://path`), created or migrated as needed.
    public static func tokenStore(at url: String) throws -> any TokenStore {
        try store(at: url, postgres: PostgresTokenStore.init(database:), sqlite: SQLiteTokenStore.init(path:))
    }

    /// The store at `url`, made by `postgres` from the database or by `sqlite` from the file path.
    private static func store<Store>(at url: String, postgres: (PostgresDatabase) throws(StoreError) -> Store,
                                     sqlite: (String) throws(StoreError) -> Store) throws -> Store {
        let location = try StoreURL(url, accepting: [.postgres, .sqlite])
        return location.scheme == .postgres ? try postgres(PostgresDatabase(url: url)) : try sqlite(location.path)
    }

    /// The accounts URL when it names a PostgreSQL database, which then holds codes and tokens too.
    private func postgresAccounts() throws -> String? {
        guard let accounts else { return nil }
        return try StoreURL(accounts, accepting: [.postgres, .sqlite]).scheme == .postgres ? accounts : nil
    }
}
