import CSQLite
import Foundation
import Domain
import Registration
import StoreTesting
import Synchronization
import Testing
@testable import EmbeddedStores

@Suite struct SQLiteDatabaseTests {
    let migrations = ["CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE) STRICT;"]

    @Test func migrationsRunOnceWhenManyOpenANewFileAtOnce() throws {
        try withTemporaryDirectory { directory in
            for attempt in 0..<5 {
                let path = "\(directory)/new-\(attempt).sqlite"
                let failures = Mutex<[StoreError]>([])
                onThreads(6) { _ in
                    do throws(StoreError) {
                        _ = try SQLiteDatabase(path: path, migrations: migrations)
                    } catch {
                        failures.withLock { $0.append(error) }
                    }
                }
                #expect(failures.withLock { $0.map(\.message) } == [])
                let database = try SQLiteDatabase(path: path, migrations: migrations)
                #expect(try database.withConnection { (db) throws(StoreError) in try Self.userVersion(&db) } == 1)
                #expect(try database.withConnection { (db) throws(StoreError) in try Self.journalMode(&db) } == "wal")
            }
        }
    }

    @Test func reopeningAppliesOnlyTheNewMigrations() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/db.sqlite"
            _ = try SQLiteDatabase(path: path, migrations: migrations)
            let grown = migrations + ["ALTER TABLE items ADD COLUMN note TEXT;"]
            let database = try SQLiteDatabase(path: path, migrations: grown)
            _ = try SQLiteDatabase(path: path, migrations: grown)
            #expect(try database.withConnection { (db) throws(StoreError) in try Self.userVersion(&db) } == 2)
            // An older build leaves a newer schema alone.
            _ = try SQLiteDatabase(path: path, migrations: migrations)
            #expect(try database.withConnection { (db) throws(StoreError) in try Self.userVersion(&db) } == 2)
        }
    }

    @Test func aThrowingTransactionRollsBack() throws {
        try withTemporaryDirectory { directory in
            let database = try SQLiteDatabase(path: "\(directory)/db.sqlite", migrations: migrations)
            #expect(throws: StoreError.self) {
                try database.transaction { (db) throws(StoreError) in
                    try db.execute("INSERT INTO items (name) VALUES (?)", ["kept?"])
                    try db.execute("INSERT INTO items (name) VALUES (?)", ["kept?"])
                }
            }
            #expect(try Self.names(database).isEmpty)
            try database.transaction { (db) throws(StoreError) in try db.execute("INSERT INTO items (name) VALUES (?)", ["kept"]) }
            #expect(try Self.names(database) == ["kept"])
        }
    }

    @Test func valuesAreBoundNotSpliced() throws {
        try withTemporaryDirectory { directory in
            let database = try SQLiteDatabase(path: "\(directory)/db.sqlite", migrations: migrations)
            let awkward = "Robert'); DROP TABLE items; -- \u{0}é"
            try database.withConnection { (db) throws(StoreError) in try db.execute("INSERT INTO items (name) VALUES (?)", [awkward]) }
            #expect(try Self.names(database) == [awkward])
        }
    }

    @Test func aConstraintViolationIsPermanent() throws {
        try withTemporaryDirectory { directory in
            let database = try SQLiteDatabase(path: "\(directory)/db.sqlite", migrations: migrations)
            let error = #expect(throws: StoreError.self) {
                try database.transaction { (db) throws(StoreError) in
                    try db.execute("INSERT INTO items (name) VALUES (?)", ["twice"])
                    try db.execute("INSERT INTO items (name) VALUES (?)", ["twice"])
                }
            }
            #expect(error?.kind == .permanent)
            #expect(error?.message.contains("UNIQUE constraint failed") == true)
        }
    }

    @Test func aReadOnlyDatabaseIsPermanent() throws {
        try withTemporaryDirectory { directory in
            let database = try SQLiteDatabase(path: "\(directory)/db.sqlite", migrations: migrations)
            try database.execute(script: "PRAGMA query_only = ON")
            let error = #expect(throws: StoreError.self) {
                try database.withConnection { (db) throws(StoreError) in try db.execute("INSERT INTO items (name) VALUES (?)", ["x"]) }
            }
            #expect(error?.kind == .permanent)
        }
    }

    @Test func aLockHeldPastTheBusyTimeoutIsTransient() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/db.sqlite"
            let holder = try SQLiteDatabase(path: path, migrations: migrations)
            let waiter = try SQLiteDatabase(path: path, migrations: migrations, busyTimeout: .milliseconds(50))
            try holder.execute(script: "BEGIN IMMEDIATE")
            let error = #expect(throws: StoreError.self) {
                try waiter.transaction { (db) throws(StoreError) in try db.execute("INSERT INTO items (name) VALUES (?)", ["x"]) }
            }
            #expect(error?.kind == .transient)
            // Readers are not blocked by the writer.
            #expect(try Self.names(waiter).isEmpty)
            try holder.execute(script: "COMMIT")
            try waiter.transaction { (db) throws(StoreError) in try db.execute("INSERT INTO items (name) VALUES (?)", ["x"]) }
        }
    }

    @Test func aWrongColumnTypeIsPermanent() throws {
        try withTemporaryDirectory { directory in
            let database = try SQLiteDatabase(path: "\(directory)/db.sqlite", migrations: migrations)
            try database.withConnection { (db) throws(StoreError) in try db.execute("INSERT INTO items (name) VALUES (?)", ["x"]) }
            let error = #expect(throws: StoreError.self) {
                try database.withConnection { (db) throws(StoreError) in
                    try db.query("SELECT name FROM items") { (row) throws(StoreError) -> Int in try row[0] }
                }
            }
            #expect(error?.kind == .permanent)
            #expect(error?.message.contains("column name") == true)
        }
    }

    @Test func releasingTheDatabaseClosesTheFile() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/db.sqlite"
            do {
                let database = try SQLiteDatabase(path: path, migrations: migrations)
                try database.withConnection { (db) throws(StoreError) in try db.execute("INSERT INTO items (name) VALUES (?)", ["x"]) }
                #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            }
            // The last connection to close checkpoints the WAL and deletes it.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test(arguments: [
        (SQLITE_BUSY, StoreError.Kind.transient), (SQLITE_BUSY | 2 << 8, .transient), (SQLITE_LOCKED, .transient),
        (SQLITE_IOERR, .transient), (SQLITE_IOERR | 4 << 8, .transient), (SQLITE_CANTOPEN, .transient),
        (SQLITE_PROTOCOL, .transient), (SQLITE_READONLY | 1 << 8, .transient),
        (SQLITE_CONSTRAINT, .permanent), (SQLITE_CONSTRAINT | 7 << 8, .permanent), (SQLITE_READONLY, .permanent),
        (SQLITE_FULL, .permanent), (SQLITE_ABORT, .permanent), (SQLITE_ERROR, .permanent), (SQLITE_CORRUPT, .permanent),
    ])
    func resultCodesAreClassified(code: Int32, kind: StoreError.Kind) {
        #expect(StoreError.Kind(sqliteCode: code) == kind)
    }

    private static func userVersion(_ db: inout SQLiteConnection) throws(StoreError) -> Int {
        try db.query("PRAGMA user_version") { (row) throws(StoreError) -> Int in try row[0] }[0]
    }

    private static func journalMode(_ db: inout SQLiteConnection) throws(StoreError) -> String {
        try db.query("PRAGMA journal_mode") { (row) throws(StoreError) -> String in try row[0] }[0]
    }

    private static func names(_ database: SQLiteDatabase) throws(StoreError) -> [String] {
        try database.withConnection { (db) throws(StoreError) in
            try db.query("SELECT name FROM items ORDER BY id") { (row) throws(StoreError) -> String in try row[0] }
        }
    }
}
