import AccountChanges
import Domain
import EmbeddedStores
import Registration
import SQLStores
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

    /// The answers `worker` gave to requests, kept in the account database so that every replica of
    /// the worker gives a request the same one answer.
    public func answerMemo(of worker: String) throws -> any AnswerMemo {
        let database = try accounts.map(Self.database(at:)) ?? EmbeddedBackends(dataDirectory).accountsDatabase()
        return try SQLAnswerMemo(database: database, worker: worker)
    }

    /// The request ids whose seals were used, in the account database so that every replica refuses a reused one.
    public func sealLedger() throws -> any SealLedger {
        try SQLSealLedger(database: try accounts.map(Self.database(at:)) ?? EmbeddedBackends(dataDirectory).accountsDatabase())
    }

    /// The account store at `url` (`postgres://…` or `sqlite://path`), created or migrated as needed.
    public static func accountChangeStore(at url: String) throws -> any AccountChangeStore {
        try SQLAccountStore(database: database(at: url))
    }

    /// The code store at `url` (`postgres://…` or `sqlite://path`), created or migrated as needed.
    public static func codeStore(at url: String) throws -> any CodeStore {
        try SQLCodeStore(database: database(at: url))
    }

    /// The token store at `url` (`postgres://…` or `sqlite://path`), created or migrated as needed.
    public static func tokenStore(at url: String) throws -> any TokenStore {
        try SQLTokenStore(database: database(at: url))
    }

    /// The accounts URL when it names a PostgreSQL database, which then holds codes and tokens too.
    private func postgresAccounts() throws -> String? {
        guard let accounts else { return nil }
        return try StoreURL(accounts, accepting: [.postgres, .sqlite]).scheme == .postgres ? accounts : nil
    }
}
