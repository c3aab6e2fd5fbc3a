import Accounts
import Backends
import Foundation
import Domain
import Support

/// The stores of sign-in: the account store with sign-in failures and account changes, and the code
/// and token stores, which are kept in the account database, so that their writes join the answer
/// memo's transaction.
extension BackendOptions {
    /// The account store with sign-in failures, account changes and deletions.
    public func accountChangeStore() throws -> any OperatorStore {
        try accounts.map(Self.accountChangeStore(at:)) ?? EmbeddedBackends(dataDirectory).accounts()
    }

    /// The code store, in the account database.
    public func codeStore() throws -> any CodeStore {
        try SQLCodeStore(database: accountDatabase())
    }

    /// The token store, in the account database.
    public func tokenStore() throws -> any TokenStore {
        try SQLTokenStore(database: accountDatabase())
    }

    /// The answers `worker` gave to requests, kept in the account database so that every replica of
    /// the worker gives a request the same one answer; `clock` stamps them (the sweep forgets old ones).
    public func answerMemo(of worker: String, clock: @escaping @Sendable () -> Date = Date.init) throws -> any AnswerMemo {
        try SQLAnswerMemo(database: accountDatabase(), worker: worker, clock: clock)
    }

    /// The request ids whose seals were used, in the account database so that every replica refuses a reused one.
    public func sealLedger() throws -> any SealLedger {
        try SQLSealLedger(database: accountDatabase())
    }

    /// The outbox of the account database: the account events its changes announce, which the account worker publishes.
    public func accountOutbox() throws -> any Outbox {
        try SQLOutbox.accounts(database: accountDatabase())
    }

    /// The side-effect outbox of the account database: what its sagas' moves keep to be done after their commit (the
    /// welcome mail), which the account worker performs.
    public func effectOutbox() throws -> any ClaimedOutbox {
        try SQLOutbox.effects(database: accountDatabase())
    }

    /// The outbox of the profile database: the profile changes it announces, which the profile worker publishes.
    public func profileOutbox() throws -> any Outbox {
        try SQLOutbox.profiles(database: profiles.map(Self.database(at:)) ?? EmbeddedBackends(dataDirectory).profilesDatabase())
    }

    /// The account database: `--accounts`, else the embedded one. A SQLite one takes in the code and
    /// token files an older data directory kept beside it.
    private func accountDatabase() throws -> any SQLDatabase {
        guard let accounts else { return try EmbeddedBackends(dataDirectory).accountsDatabase() }
        let database = try Self.database(at: accounts)
        if let sqlite = database as? SQLiteDatabase { try EmbeddedBackends(dataDirectory).importSeparateStores(into: sqlite) }
        return database
    }

    /// The account store at `url` (`postgres://…` or `sqlite://path`), created or migrated as needed.
    public static func accountChangeStore(at url: String) throws -> any OperatorStore {
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
}
