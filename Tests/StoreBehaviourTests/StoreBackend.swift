import Backends
import Domain
import Registration
import SQLStores
@testable import TestSupport

/// An implementation of the stores, to run one behaviour suite against each.
enum StoreBackend: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    /// Runs `body` with the URL of a new empty location for stores of this implementation.
    func withNewLocation<T>(_ body: (String) throws -> T) throws -> T {
        switch self {
        case .sqlite: try withTemporaryDirectory { try body("sqlite://\($0)/store.sqlite") }
        case .postgres: try body(PostgresServer.shared().newDatabase())
        }
    }

    /// Runs `body` with a new empty account store of this implementation.
    func withAccountStore<T>(_ body: (any AccountStore) throws -> T) throws -> T {
        try withNewLocation { try body(BackendOptions.accountStore(at: $0)) }
    }

    /// Runs `body` with a new empty store of this implementation, which `open` opens from its URL
    /// (e.g. `BackendOptions.codeStore(at:)`).
    func withStore<Store, T>(_ open: (String) throws -> Store, _ body: (Store) throws -> T) throws -> T {
        try withNewLocation { try body(open($0)) }
    }

    /// Runs `body` with the options of a worker of an installation on new empty stores of this implementation:
    /// on SQLite the embedded defaults of a new data directory, on PostgreSQL a new accounts database.
    func withWorkerStores<T>(_ body: (BackendOptions) throws -> T) throws -> T {
        switch self {
        case .sqlite: try withTemporaryDirectory { try body(BackendOptions(dataDirectory: $0)) }
        case .postgres: try withNewLocation { try body(BackendOptions(accounts: $0, dataDirectory: "/nonexistent")) }
        }
    }

    /// Runs `body` with a new empty profile store of this implementation.
    func withProfileStore<T>(_ body: (any ProfileStore) throws -> T) throws -> T {
        try withNewLocation { try body(BackendOptions.profileStore(at: $0)) }
    }
}

extension StoreBackend {
    /// Makes the answer memo's table at `url` (created already) refuse every insert, as a full or failing
    /// database would refuse the memo's write.
    func refuseAnswers(at url: String) throws {
        switch self {
        case .sqlite:
            try SQLiteDatabase(path: String(url.dropFirst("sqlite://".count))).execute(script: """
                CREATE TRIGGER refuse_answers BEFORE INSERT ON answers BEGIN SELECT RAISE(ABORT, 'answers refused'); END;
                """)
        case .postgres:
            try PostgresDatabase(url: url).execute(script: """
                CREATE FUNCTION refuse_answers() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'answers refused'; END $$;
                CREATE TRIGGER refuse_answers BEFORE INSERT ON answers FOR EACH ROW EXECUTE FUNCTION refuse_answers();
                """)
        }
    }
}
