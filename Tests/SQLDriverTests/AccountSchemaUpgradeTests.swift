import Domain
import PostgresDriver
import Registration
@testable import SQLStores
import SQLiteDriver
@testable import TestSupport
import Testing

/// An account database created by the build before the answer memo (the schema's first two
/// migrations, as that build wrote them) opens with its rows, and gains the memo's table.
@Suite(.tags(.production)) struct AccountSchemaUpgradeTests {
    @Test(arguments: ["sqlite", "postgres"])
    func aDatabaseOfThePreviousBuildOpensWithItsAccountsAndGainsTheMemo(driver: String) throws {
        try withDatabase(driver) { (database) throws in
            let previous = database.dialect == .sqlite ? accountSchema.sqlite : accountSchema.postgres
            try database.migrate("accounts", Array(previous.prefix(2)))
            let saga = sagaRecord("r1")
            try database.withConnection { (db) throws(SQLError) in
                try db.execute(database.dialect.statement(Account.insert), pendingAccount(for: saga).values.map(\.sqlValue))
            }

            let store = try SQLAccountStore(database: database)
            #expect(try store.account(uid: saga.uid) == pendingAccount(for: saga))
            let memo = try SQLAnswerMemo(database: database, worker: "account-worker")
            #expect(try memo.keep(Array("answer".utf8), for: "r1") == nil)
        }
    }

    private func withDatabase(_ driver: String, _ body: (any SQLDatabase) throws -> Void) throws {
        if driver == "postgres" {
            try body(PostgresDatabase(url: try PostgresServer.shared().newDatabase()))
        } else {
            try withTemporaryDirectory { try body(SQLiteDatabase(path: "\($0)/accounts.sqlite")) }
        }
    }
}
