import Backends
import Domain
import Foundation
import Registration
import SignIn
import SQLStores
import Synchronization
@testable import TestSupport

/// An implementation of the stores, to run one behaviour suite against each.
///
/// The suite of a port that unit tests use a fake of (`TestSupport/Fakes`) runs on every case, `memory` included
/// (`FakeStoreTests` keeps it so); the other suites on the `databases`.
enum StoreBackend: String, CaseIterable, Sendable {
    case sqlite
    case postgres
    /// The fakes of `TestSupport/Fakes`, held to the contract of the stores they stand in for.
    case memory

    /// The SQL databases: every store of production.
    static let databases: [StoreBackend] = [.sqlite, .postgres]

    /// The fakes `memory` opens, by the name of their type.
    static let fakes: Set<String> = ["InMemoryAccountStore", "InMemoryTokenStore"]

    /// Runs `body` with the URL of a new empty location for stores of this implementation.
    func withNewLocation<T>(_ body: (String) throws -> T) throws -> T {
        switch self {
        case .sqlite: try withTemporaryDirectory { try body("sqlite://\($0)/store.sqlite") }
        case .postgres: try body(PostgresServer.shared().newDatabase())
        case .memory: try MemoryLocation.with(body)
        }
    }

    /// The account store at `url`, a location of this implementation: stores opened at one location share what they
    /// keep, as the workers on one database do.
    func accountChangeStore(at url: String) throws -> any AccountChangeStore {
        if self == .memory { return MemoryLocation.fake(at: url) { InMemoryAccountStore() } }
        return try BackendOptions.accountChangeStore(at: url)
    }

    /// The account store at `url` as registration sees it.
    func accountStore(at url: String) throws -> any AccountStore {
        try accountChangeStore(at: url)
    }

    /// The token store at `url`.
    func tokenStore(at url: String) throws -> any TokenStore {
        if self == .memory { return MemoryLocation.fake(at: url) { InMemoryTokenStore() } }
        return try BackendOptions.tokenStore(at: url)
    }

    /// Runs `body` with a new empty account store of this implementation.
    func withAccountStore<T>(_ body: (any AccountStore) throws -> T) throws -> T {
        try withNewLocation { try body(accountStore(at: $0)) }
    }

    /// Runs `body` with a new empty account store of this implementation, with sign-in failures and account changes.
    func withAccountChangeStore<T>(_ body: (any AccountChangeStore) throws -> T) throws -> T {
        try withNewLocation { try body(accountChangeStore(at: $0)) }
    }

    /// Runs `body` with a new empty token store of this implementation.
    func withTokenStore<T>(_ body: (any TokenStore) throws -> T) throws -> T {
        try withNewLocation { try body(tokenStore(at: $0)) }
    }

    /// Runs `body` with a new empty store of one of the `databases`, which `open` opens from its URL
    /// (e.g. `BackendOptions.codeStore(at:)`).
    func withStore<Store, T>(_ open: (String) throws -> Store, _ body: (Store) throws -> T) throws -> T {
        try withNewLocation { try body(open($0)) }
    }

    /// Runs `body` with the options of a worker of an installation on new empty stores of one of the `databases`:
    /// on SQLite the embedded defaults of a new data directory, on PostgreSQL a new accounts database.
    func withWorkerStores<T>(_ body: (BackendOptions) throws -> T) throws -> T {
        switch self {
        case .sqlite: try withTemporaryDirectory { try body(BackendOptions(dataDirectory: $0)) }
        case .postgres: try withNewLocation { try body(BackendOptions(accounts: $0, dataDirectory: "/nonexistent")) }
        case .memory: throw TestServerError("no fake stands in for a worker's stores")
        }
    }

    /// Runs `body` with a new empty profile store of one of the `databases`.
    func withProfileStore<T>(_ body: (any ProfileStore) throws -> T) throws -> T {
        try withNewLocation { try body(BackendOptions.profileStore(at: $0)) }
    }
}

/// The locations of the `memory` backend, `memory://<uuid>`: the fake of a port opened at one is the same fake
/// however often it is opened, until the location is done with.
enum MemoryLocation {
    private static let fakes = Mutex<[String: any Sendable]>([:])

    /// Runs `body` with a new location, forgotten afterwards.
    static func with<T>(_ body: (String) throws -> T) throws -> T {
        let url = "memory://\(UUID().uuidString)"
        defer { fakes.withLock { fakes in fakes = fakes.filter { !$0.key.hasPrefix(url + "#") } } }
        return try body(url)
    }

    /// The fake of type `Fake` at `url`, made by `make` the first time.
    static func fake<Fake: Sendable>(at url: String, _ make: () -> Fake) -> Fake {
        fakes.withLock { fakes in
            let key = "\(url)#\(Fake.self)"
            if let fake = fakes[key] as? Fake { return fake }
            let fake = make()
            fakes[key] = fake
            return fake
        }
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
        case .memory:
            throw TestServerError("no fake keeps answers")
        }
    }
}
