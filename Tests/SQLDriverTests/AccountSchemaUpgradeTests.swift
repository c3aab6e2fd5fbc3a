import Domain
import Foundation
import Registration
import SignIn
@testable import SQLStores
@testable import TestSupport
import Testing

/// Account databases of earlier builds open with their rows and gain what this build adds.
@Suite(.tags(.production)) struct AccountSchemaUpgradeTests {
    /// The build before the answer memo (the schema's first two migrations, as that build wrote them).
    @Test(arguments: ["sqlite", "postgres"])
    func aDatabaseOfTheBuildBeforeTheMemoOpensWithItsAccountsAndGainsTheMemo(driver: String) throws {
        try withDatabase(driver) { (database) throws in
            try migrate(database, through: 2)
            let saga = sagaRecord("r1")
            try insertAccount(pendingAccount(for: saga), into: database)

            let store = try SQLAccountStore(database: database)
            #expect(try store.account(uid: saga.uid) == pendingAccount(for: saga))
            let memo = try SQLAnswerMemo(database: database, worker: "account-worker")
            #expect(try memo.keep(Array("answer".utf8), for: AnswerKey(topic: Topic.authRequests, id: "r1")) == nil)
        }
    }

    /// The build before account ownership (seven migrations): its accounts count as unproven, but for those a code
    /// proved (made by code sign-in, or whose password was reset); its locks for good are lifted; its answers are kept
    /// by their request's topic.
    @Test(arguments: ["sqlite", "postgres"])
    func aDatabaseOfTheBuildBeforeOwnershipKeepsItsAnswersAndProvesOnlyCodeProvenAccounts(driver: String) throws {
        try withDatabase(driver) { (database) throws in
            try migrate(database, through: 7)
            let (legacy, coded, reset) = (sagaRecord("r1"), sagaRecord("r2", email: "coded@example.com"), sagaRecord("r3", email: "reset@example.com"))
            try insertAccount(pendingAccount(for: legacy), into: database)
            var codeOnly = pendingAccount(for: coded)
            codeOnly.passwordHash = ""
            try insertAccount(codeOnly, into: database)
            try insertAccount(pendingAccount(for: reset), into: database)
            try database.withConnection { (db) throws(SQLError) in
                try db.execute(database.dialect.statement("""
                    INSERT INTO account_changes (request_id, uid, kind, old_email, new_email, stage, updated_at)
                    VALUES ('c1', ?, 'reset_password', 'x', 'x', 'completed', 0)
                    """), [.text(reset.uid)])
                // Locked for good by the hundredth failure, as that build did.
                try db.execute(database.dialect.statement("INSERT INTO sign_in_failures (uid, consecutive, locked_until) VALUES (?, 100, 63113904000)"),
                               [.text(legacy.uid)])
                for (id, answer) in [("q1", #"{"type":"CodeSent"}"#), ("q2", #"{"type":"TokenRefused"}"#), ("q3", #"{"type":"AccountChangeFailed"}"#)] {
                    try db.execute(database.dialect.statement("INSERT INTO answers (worker, request_id, answer) VALUES ('w', ?, ?)"),
                                   [.text(id), .text(answer)])
                }
            }

            let store = try SQLAccountStore(database: database)
            #expect(try store.account(uid: legacy.uid)?.isVerified == false)
            #expect(try store.account(uid: coded.uid)?.isVerified == true)
            #expect(try store.account(uid: reset.uid)?.isVerified == true)
            #expect(try store.updateFailures(uid: legacy.uid) { $0 } == SignInFailures(consecutive: 100), "the lock for good is lifted")
            let memo = try SQLAnswerMemo(database: database, worker: "w")
            #expect(try memo.answer(to: AnswerKey(topic: Topic.codeRequests, id: "q1")) == Array(#"{"type":"CodeSent"}"#.utf8))
            #expect(try memo.answer(to: AnswerKey(topic: Topic.authRequests, id: "q2")) != nil)
            #expect(try memo.answer(to: AnswerKey(topic: Topic.accountRequests, id: "q3")) != nil)
            #expect(try memo.answer(to: AnswerKey(topic: Topic.authRequests, id: "q1")) == nil)
            #expect(try memo.forget(answeredBefore: Date().addingTimeInterval(60)) == 3)
        }
    }

    /// Applies the account schema's first `count` migrations, as the build that had only those did.
    private func migrate(_ database: any SQLDatabase, through count: Int) throws {
        let migrations = database.dialect == .sqlite ? accountSchema.sqlite : accountSchema.postgres
        try database.migrate("accounts", Array(migrations.prefix(count)))
    }

    /// Inserts `account` with the columns every build had.
    private func insertAccount(_ account: Account, into database: any SQLDatabase) throws {
        try database.withConnection { (db) throws(SQLError) in
            try db.execute(database.dialect.statement("""
                INSERT INTO accounts (uid, email, password_hash, status, registration_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
                """), Array(account.values.prefix(6)).map(\.sqlValue))
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
