import Domain
import Foundation
import Registration
@testable import SQLStores
import Synchronization
@testable import TestSupport
import Testing

@Suite(.tags(.production)) struct PostgresDatabaseTests {
    let migrations = [
        "CREATE TABLE items (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);",
        "ALTER TABLE items ADD COLUMN note TEXT;",
    ]

    @Test func migrationsRunOnceWhenReplicasStartAtOnce() throws {
        let url = try PostgresServer.shared().newDatabase()
        let failures = Mutex<[String]>([])
        onThreads(8) { _ in
            do throws(StoreError) {
                try PostgresDatabase(url: url).migrate("items", migrations)
            } catch {
                failures.withLock { $0.append(error.message) }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let database = PostgresDatabase(url: url)
        #expect(try Self.version(of: "items", in: database) == .integer(2))
        // A non-idempotent script ran once: a second run would have failed on the existing column.
        try database.withConnection { (db) throws(SQLError) in try db.execute("INSERT INTO items (name, note) VALUES ($1, $2)", [.text("a"), .text("b")]) }
    }

    @Test func anOlderBuildLeavesANewerSchemaAlone() throws {
        let database = PostgresDatabase(url: try PostgresServer.shared().newDatabase())
        try database.migrate("items", migrations)
        try database.migrate("items", Array(migrations.prefix(1)))
        #expect(try Self.version(of: "items", in: database) == .integer(2))
    }

    @Test func aThrowingTransactionRollsBack() throws {
        let database = PostgresDatabase(url: try PostgresServer.shared().newDatabase())
        try database.migrate("items", migrations)
        let error = #expect(throws: StoreError.self) {
            try database.transaction { (db) throws(SQLError) in
                try db.execute("INSERT INTO items (name) VALUES ($1)", [.text("twice")])
                try db.execute("INSERT INTO items (name) VALUES ($1)", [.text("twice")])
            }
        }
        #expect(error?.kind == .permanent)
        #expect(error?.message.contains("23505") == true)
        #expect(try Self.names(database).isEmpty)
    }

    @Test func textWithANulCharacterIsRefusedPermanently() throws {
        let database = PostgresDatabase(url: try PostgresServer.shared().newDatabase())
        try database.migrate("items", migrations)
        let error = #expect(throws: StoreError.self) {
            try database.withConnection { (db) throws(SQLError) in try db.execute("INSERT INTO items (name) VALUES ($1)", [.text("a\u{0}b")]) }
        }
        #expect(error?.kind == .permanent)
    }

    @Test func anUnreachableServerIsTransient() throws {
        let database = PostgresDatabase(url: "postgres://postgres@127.0.0.1:\(try freePort())/postgres?connect_timeout=2",
                                        retry: StoreRetry(attempts: 2, initialDelay: .milliseconds(10)))
        let error = #expect(throws: StoreError.self) { try database.execute(script: "SELECT 1") }
        #expect(error?.kind == .transient)
    }

    @Test func aBusyPoolFailsTransientlyAfterItsWaitLimit() throws {
        let database = PostgresDatabase(url: try PostgresServer.shared().newDatabase(), connections: 1,
                                        waitLimit: .milliseconds(100), retry: StoreRetry(attempts: 1))
        let error = #expect(throws: StoreError.self) {
            try database.withConnection { (_) throws(SQLError) in
                do throws(StoreError) {
                    try database.execute(script: "SELECT 1")
                } catch {
                    throw SQLError(error.kind, error.message)
                }
            }
        }
        #expect(error?.kind == .transient)
        #expect(error?.message.contains("busy") == true)
    }

    /// A server made read-only (a failover, maintenance) refuses writes transiently; once it is
    /// writable again, the next call writes on a fresh connection, since the refused one's session
    /// would stay read-only.
    @Test func aReadOnlyServerFailsTransientlyAndAFreshConnectionWritesOnceItIsWritable() throws {
        let url = try PostgresServer.shared().newDatabase()
        let name = String(try #require(url.split(separator: "/").last?.split(separator: "?").first))
        let admin = PostgresDatabase(url: url, connections: 1)
        try admin.migrate("items", migrations)
        try admin.execute(script: "ALTER DATABASE \(name) SET default_transaction_read_only = on")
        let writer = PostgresDatabase(url: url, connections: 1, retry: StoreRetry(attempts: 1))
        let error = #expect(throws: StoreError.self) { try writer.execute(script: "INSERT INTO items (name) VALUES ('refused')") }
        #expect(error?.kind == .transient)
        #expect(error?.message.contains("25006") == true)

        try admin.execute(script: "ALTER DATABASE \(name) RESET default_transaction_read_only")
        try writer.execute(script: "INSERT INTO items (name) VALUES ('written')")
        #expect(try Self.names(admin) == [.text("written")])
    }

    @Test(arguments: [
        ("08006", StoreError.Kind.transient), ("08001", .transient), ("40001", .transient), ("40P01", .transient),
        ("57P01", .transient), ("57P03", .transient), ("53300", .transient), ("53100", .transient), ("25006", .transient),
        ("57P04", .transient), ("55P03", .transient),
        ("23505", .permanent), ("23503", .permanent), ("42P01", .permanent), ("22021", .permanent), ("P0001", .permanent),
    ])
    func sqlStatesAreClassified(sqlState: String, kind: StoreError.Kind) {
        #expect(StoreError.Kind(sqlState: sqlState) == kind)
    }

    private static func version(of schema: String, in database: PostgresDatabase) throws -> SQLValue? {
        try database.withConnection { (db) throws(SQLError) in
            try db.query("SELECT version FROM registrar_migrations WHERE schema_name = $1", [.text(schema)]).first?.values[0]
        }
    }

    private static func names(_ database: PostgresDatabase) throws -> [SQLValue] {
        try database.withConnection { (db) throws(SQLError) in
            try db.query("SELECT name FROM items ORDER BY id", []).map { $0.values[0] }
        }
    }
}
