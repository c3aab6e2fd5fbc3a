internal import CSQLite
import Domain
import Foundation
import Registration
@testable import SQLStores
import Synchronization
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct SQLiteDatabaseTests {
    let migrations = ["CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE) STRICT;"]

    @Test func migrationsRunOnceWhenManyOpenANewFileAtOnce() throws {
        try withTemporaryDirectory { directory in
            for attempt in 0..<5 {
                let path = "\(directory)/new-\(attempt).sqlite"
                let failures = Mutex<[StoreError]>([])
                onThreads(6) { _ in
                    do throws(StoreError) {
                        try SQLiteDatabase(path: path).migrate("items", migrations)
                    } catch {
                        failures.withLock { $0.append(error) }
                    }
                }
                #expect(failures.withLock { $0.map(\.message) } == [])
                let database = try SQLiteDatabase(path: path)
                #expect(try database.withConnection { (db) throws(SQLError) in try Self.version(of: "items", db) } == .integer(1))
                #expect(try database.withConnection { (db) throws(SQLError) in try Self.journalMode(db) } == .text("wal"))
            }
        }
    }

    @Test func reopeningAppliesOnlyTheNewMigrations() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/db.sqlite"
            try SQLiteDatabase(path: path).migrate("items", migrations)
            let grown = migrations + ["ALTER TABLE items ADD COLUMN note TEXT;"]
            let database = try SQLiteDatabase(path: path)
            try database.migrate("items", grown)
            try SQLiteDatabase(path: path).migrate("items", grown)
            #expect(try database.withConnection { (db) throws(SQLError) in try Self.version(of: "items", db) } == .integer(2))
            // An older build leaves a newer schema alone.
            try SQLiteDatabase(path: path).migrate("items", migrations)
            #expect(try database.withConnection { (db) throws(SQLError) in try Self.version(of: "items", db) } == .integer(2))
        }
    }

    /// One file holds several schemas, each counted on its own.
    @Test func schemasInOneFileHaveTheirOwnVersions() throws {
        try withTemporaryDirectory { directory in
            let database = try SQLiteDatabase(path: "\(directory)/db.sqlite")
            try database.migrate("items", migrations)
            try database.migrate("notes", ["CREATE TABLE notes (id INTEGER PRIMARY KEY) STRICT;", "ALTER TABLE notes ADD COLUMN text TEXT;"])
            try database.migrate("items", migrations + ["ALTER TABLE items ADD COLUMN note TEXT;"])
            #expect(try database.withConnection { (db) throws(SQLError) in try Self.version(of: "items", db) } == .integer(2))
            #expect(try database.withConnection { (db) throws(SQLError) in try Self.version(of: "notes", db) } == .integer(2))
        }
    }

    /// A file made when a file held one schema, counted in `user_version`: the first schema migrated takes
    /// that count (its scripts are not run again), a second one starts from nothing.
    @Test func anOlderFilesCountGoesToTheFirstSchemaMigrated() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/old.sqlite"
            try SQLiteDatabase(path: path).execute(script: migrations[0] + " PRAGMA user_version = 1;")
            let database = try SQLiteDatabase(path: path)
            try database.migrate("items", migrations)
            try database.migrate("notes", ["CREATE TABLE notes (id INTEGER PRIMARY KEY) STRICT;"])
            #expect(try database.withConnection { (db) throws(SQLError) in try Self.version(of: "items", db) } == .integer(1))
            #expect(try database.withConnection { (db) throws(SQLError) in try Self.version(of: "notes", db) } == .integer(1))
        }
    }

    @Test func aThrowingTransactionRollsBack() throws {
        try withTemporaryDirectory { directory in
            let database = try Self.database(at: "\(directory)/db.sqlite", migrations)
            #expect(throws: StoreError.self) {
                try database.transaction { (db) throws(SQLError) in
                    try db.execute("INSERT INTO items (name) VALUES (?)", [.text("kept?")])
                    try db.execute("INSERT INTO items (name) VALUES (?)", [.text("kept?")])
                }
            }
            #expect(try Self.names(database).isEmpty)
            try database.transaction { (db) throws(SQLError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text("kept")]) }
            #expect(try Self.names(database) == [.text("kept")])
        }
    }

    @Test func valuesAreBoundNotSpliced() throws {
        try withTemporaryDirectory { directory in
            let database = try Self.database(at: "\(directory)/db.sqlite", migrations)
            let awkward = "Robert'); DROP TABLE items; -- \u{0}é"
            try database.withConnection { (db) throws(SQLError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text(awkward)]) }
            #expect(try Self.names(database) == [.text(awkward)])
        }
    }

    @Test func aConstraintViolationIsPermanent() throws {
        try withTemporaryDirectory { directory in
            let database = try Self.database(at: "\(directory)/db.sqlite", migrations)
            let error = #expect(throws: StoreError.self) {
                try database.transaction { (db) throws(SQLError) in
                    try db.execute("INSERT INTO items (name) VALUES (?)", [.text("twice")])
                    try db.execute("INSERT INTO items (name) VALUES (?)", [.text("twice")])
                }
            }
            #expect(error?.kind == .permanent)
            #expect(error?.message.contains("UNIQUE constraint failed") == true)
        }
    }

    /// Read-only is the database's state, not the statement's fault: the worker waits for it to end (issue 13).
    @Test func aReadOnlyDatabaseIsTransient() throws {
        try withTemporaryDirectory { directory in
            let database = try Self.database(at: "\(directory)/db.sqlite", migrations)
            try database.execute(script: "PRAGMA query_only = ON")
            let error = #expect(throws: StoreError.self) {
                try database.withConnection { (db) throws(SQLError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text("x")]) }
            }
            #expect(error?.kind == .transient)
        }
    }

    @Test func aLockHeldPastTheBusyTimeoutIsTransient() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/db.sqlite"
            let holder = try Self.database(at: path, migrations)
            let waiter = try SQLiteDatabase(path: path, busyTimeout: .milliseconds(50))
            try holder.execute(script: "BEGIN IMMEDIATE")
            let error = #expect(throws: StoreError.self) {
                try waiter.transaction { (db) throws(SQLError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text("x")]) }
            }
            #expect(error?.kind == .transient)
            // Readers are not blocked by the writer.
            #expect(try Self.names(waiter).isEmpty)
            try holder.execute(script: "COMMIT")
            try waiter.transaction { (db) throws(SQLError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text("x")]) }
        }
    }

    @Test func aWrongColumnTypeIsPermanent() throws {
        try withTemporaryDirectory { directory in
            let database = try Self.database(at: "\(directory)/db.sqlite", migrations)
            try database.withConnection { (db) throws(SQLError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text("x")]) }
            let error = #expect(throws: StoreError.self) {
                try database.withConnection { (db) throws(SQLError) in
                    try db.query("SELECT name FROM items", []).map { (row) throws(SQLError) -> Int in try row[0] }
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
                let database = try Self.database(at: path, migrations)
                try database.withConnection { (db) throws(SQLError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text("x")]) }
                #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            }
            // The last connection to close checkpoints the WAL and deletes it.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test(arguments: [
        (SQLITE_BUSY, StoreError.Kind.transient), (SQLITE_BUSY | 2 << 8, .transient), (SQLITE_LOCKED, .transient),
        (SQLITE_IOERR, .transient), (SQLITE_IOERR | 4 << 8, .transient), (SQLITE_CANTOPEN, .transient),
        (SQLITE_PROTOCOL, .transient), (SQLITE_READONLY | 1 << 8, .transient), (SQLITE_READONLY, .transient),
        (SQLITE_READONLY | 4 << 8, .transient), (SQLITE_FULL, .transient), (SQLITE_CANTOPEN | 1 << 8, .transient),
        (SQLITE_CONSTRAINT, .permanent), (SQLITE_CONSTRAINT | 7 << 8, .permanent),
        (SQLITE_ABORT, .permanent), (SQLITE_ERROR, .permanent), (SQLITE_CORRUPT, .permanent),
    ])
    func resultCodesAreClassified(code: Int32, kind: StoreError.Kind) {
        #expect(StoreError.Kind(sqliteCode: code) == kind)
    }

    private static func database(at path: String, _ migrations: [String]) throws(StoreError) -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: path)
        try database.migrate("items", migrations)
        return database
    }

    /// How many scripts of the schema `name` the file counts as applied.
    private static func version(of name: String, _ db: any SQLConnection) throws(SQLError) -> SQLValue {
        try db.query("SELECT version FROM registrar_migrations WHERE schema_name = ?", [.text(name)]).first?.values[0] ?? .null
    }

    private static func journalMode(_ db: any SQLConnection) throws(SQLError) -> SQLValue {
        try db.query("PRAGMA journal_mode", [])[0].values[0]
    }

    private static func names(_ database: SQLiteDatabase) throws(StoreError) -> [SQLValue] {
        try database.withConnection { (db) throws(SQLError) in
            try db.query("SELECT name FROM items ORDER BY id", []).map { $0.values[0] }
        }
    }
}
