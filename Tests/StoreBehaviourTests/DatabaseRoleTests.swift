import Backends
import Domain
import Foundation
import SQLStores
@testable import TestSupport
import Testing
import Verification

/// Least privilege per worker on a real PostgreSQL: `registrar migrate`'s setup (`DatabaseSetup`) run as the owner,
/// then each worker's role connects and does what its stores do, and is refused everything else.
@Suite(.tags(.production)) struct DatabaseRoleTests {
    /// A database migrated and granted by its owner, with a role per worker (named apart from other tests').
    struct Setup {
        let owner: String
        let roles: [DatabaseAccess.Worker: String]

        init() throws {
            let server = try PostgresServer.shared()
            owner = try server.newDatabase()
            let prefix = "t\(UUID().uuidString.prefix(8).lowercased())_"
            roles = Dictionary(uniqueKeysWithValues: DatabaseAccess.Worker.allCases.map { ($0, prefix + $0.defaultRole) })
            let admin = PostgresDatabase(url: owner)
            for role in roles.values { try admin.execute(script: "CREATE ROLE \(role) LOGIN") }
            try DatabaseSetup.migrate(accounts: owner, profiles: owner)
            let report = try DatabaseSetup.grant(accounts: owner, profiles: owner, roles: roles)
            #expect(report.count == 4, "\(report)")
        }

        /// The database's URL as `worker`'s role.
        func url(as worker: DatabaseAccess.Worker) -> String {
            owner.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(roles[worker]!)@")
        }

        /// `sql` as `worker`'s role, tried once: nil when it ran, else the refusal.
        func refusal(_ sql: String, as worker: DatabaseAccess.Worker) -> String? {
            do {
                try PostgresDatabase(url: url(as: worker), retry: StoreRetry(attempts: 1)).execute(script: sql)
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    static let tables = ["accounts", "sagas", "sign_in_failures", "account_changes", "code_failures", "used_seals", "codes",
                         "token_families", "refresh_tokens", "pending_sign_ins", "profiles"]

    @Test func theCodeDispatchWorkerReachesOnlyTheCodesAndItsOwnAnswers() throws {
        let setup = try Setup()
        let role = DatabaseAccess.Worker.codeDispatchWorker
        // Its stores open (no DDL: the schema is current) and work.
        let codes = try BackendOptions.codeStore(at: setup.url(as: role))
        try codes.update(email: "ada@example.com", purpose: .login) { (record) throws(StoreError) in
            record = CodeRecord(email: "ada@example.com", purpose: .login, digest: "d", issuedBy: "r1", expiresAt: Date() + 600, sentAt: [Date()])
        }
        let answers = try BackendOptions(accounts: setup.url(as: role), dataDirectory: "/nonexistent").answerMemo(of: role.rawValue)
        #expect(try answers.keep(Array("sent".utf8), for: AnswerKey(topic: Topic.codeRequests, id: "r1")) == nil)
        for table in Self.tables where table != "codes" {
            #expect(setup.refusal("SELECT 1 FROM \(table)", as: role)?.contains("permission denied") == true, "reads \(table)")
        }
        #expect(setup.refusal("INSERT INTO answers (worker, topic, request_id, answer, answered_at) "
                              + "VALUES ('account-worker', 'auth.requests', 'x', 'forged', 0)", as: role)?
            .contains("row-level security") == true, "writes another worker's answers")
        try PostgresDatabase(url: setup.owner).execute(script: "INSERT INTO answers (worker, topic, request_id, answer, answered_at) "
                                                       + "VALUES ('account-worker', 'auth.requests', 'r9', 'tokens', 0)")
        #expect(try BackendOptions(accounts: setup.url(as: role), dataDirectory: "/nonexistent").answerMemo(of: "account-worker")
            .answer(to: AnswerKey(topic: Topic.authRequests, id: "r9")) == nil, "another worker's answer is invisible")
        // Its sweep forgets its own old answers, never another worker's.
        #expect(try answers.forget(answeredBefore: Date() + 60) == 1)
        #expect(try PostgresDatabase(url: setup.owner).withConnection { (connection) throws(SQLError) in
            try connection.query("SELECT request_id FROM answers", [])
        }.count == 1, "the sweep deleted another worker's answer")
        #expect(setup.refusal("CREATE TABLE planted (x TEXT)", as: role) != nil)
        #expect(setup.refusal("DROP TABLE codes", as: role) != nil)
    }

    @Test func theProfileWorkerReachesOnlyTheProfiles() throws {
        let setup = try Setup()
        let role = DatabaseAccess.Worker.profileWorker
        let profiles = try BackendOptions.profileStore(at: setup.url(as: role))
        let profile = Profile(name: "Ada", email: "ada@example.com", profileImage: "https://x/ProfileImages/a.jpg", isMapLocationEnabled: true)
        #expect(try profiles.write(profile, uid: "u1", revision: 1))
        #expect(try profiles.profile(uid: "u1") == profile)
        #expect(try profiles.deleteProfile(uid: "u1", revision: 2))
        for table in Self.tables + ["answers"] where table != "profiles" {
            #expect(setup.refusal("SELECT 1 FROM \(table)", as: role)?.contains("permission denied") == true, "reads \(table)")
        }
    }

    @Test func theAccountWorkerReadsProfilesWithoutWritingThemAndSeesOnlyItsAnswers() throws {
        let setup = try Setup()
        let role = DatabaseAccess.Worker.accountWorker
        let url = setup.url(as: role)
        _ = try BackendOptions.accountChangeStore(at: url)
        _ = try BackendOptions.tokenStore(at: url)
        _ = try BackendOptions.codeStore(at: url)
        for table in Self.tables { #expect(setup.refusal("SELECT 1 FROM \(table)", as: role) == nil, "reads \(table)") }
        #expect(setup.refusal("INSERT INTO profiles (uid, name, email, profile_image, is_map_location_enabled, updated_at) "
                              + "VALUES ('u', 'n', 'e', 'i', false, 0)", as: role)?.contains("permission denied") == true)
        #expect(setup.refusal("DELETE FROM profiles", as: role)?.contains("permission denied") == true)
        #expect(setup.refusal("INSERT INTO answers (worker, topic, request_id, answer, answered_at) "
                              + "VALUES ('code-dispatch-worker', 'code.requests', 'x', 'forged', 0)", as: role)?
            .contains("row-level security") == true)
        #expect(setup.refusal("ALTER TABLE accounts ADD COLUMN planted TEXT", as: role) != nil)
    }

    /// Each worker keeps and relays its own store's outbox as its own role (the identity column needs no other grant), and
    /// reaches no other's.
    @Test func eachAnnouncingWorkerRelaysOnlyItsOwnOutbox() throws {
        let setup = try Setup()
        let profileRole = setup.url(as: .profileWorker)
        let profiles = try BackendOptions.profileStore(at: profileRole)
        let profile = Profile(name: "Ada", email: "ada@example.com", profileImage: "https://x/ProfileImages/a.jpg", isMapLocationEnabled: true)
        #expect(try profiles.write(profile, uid: "u1", revision: 1))
        var renamed = profile
        renamed.name = "Ada L."
        #expect(try profiles.write(renamed, uid: "u1", revision: 2))
        let profileOutbox = try SQLOutbox.profiles(database: PostgresDatabase(url: profileRole))
        let kept = try profileOutbox.pending(limit: 10)
        #expect(kept.map(\.type) == ["ProfileUpdated"] && kept.compactMap { AccountEvent(decoding: $0.payload)?.changed } == [[.name]])
        try profileOutbox.remove(kept)
        #expect(try profileOutbox.pending(limit: 10).isEmpty)

        try PostgresDatabase(url: setup.owner).execute(script: "INSERT INTO account_outbox (topic, message_key, type, payload) "
                                                       + "VALUES ('account.events', 'u1', 'AccountRegistered', '{}')")
        let accountOutbox = try SQLOutbox.accounts(database: PostgresDatabase(url: setup.url(as: .accountWorker)))
        let registered = try accountOutbox.pending(limit: 10)
        #expect(registered.map(\.key) == ["u1"])
        try accountOutbox.remove(registered)
        #expect(setup.refusal("INSERT INTO account_outbox (topic, message_key, type, payload) VALUES ('t', 'k', 'x', '{}')",
                              as: .accountWorker) == nil)
        for (role, table) in [(DatabaseAccess.Worker.profileWorker, "account_outbox"), (.accountWorker, "profile_outbox"),
                              (.codeDispatchWorker, "account_outbox"), (.codeDispatchWorker, "profile_outbox")] {
            #expect(setup.refusal("SELECT 1 FROM \(table)", as: role)?.contains("permission denied") == true, "\(role) reads \(table)")
        }
    }

    /// A table a later migration adds is one `DatabaseAccess` knows: otherwise no role would be granted (or refused) it.
    @Test func everyTableTheSchemasCreateIsDeclared() throws {
        let setup = try Setup()
        let rows = try PostgresDatabase(url: setup.owner).withConnection { (connection) throws(SQLError) in
            try connection.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'", [])
        }
        let created = Set(rows.compactMap { row -> String? in if case .text(let name)? = row.values.first { name } else { nil } })
        #expect(created == Set(DatabaseAccess.tables.values.joined()))
    }

    @Test func theOperatorsToolsReadAndWriteNothing() throws {
        let setup = try Setup()
        let role = DatabaseAccess.Worker.operatorTools
        _ = try BackendOptions.accountStore(at: setup.url(as: role))
        _ = try BackendOptions.profileStore(at: setup.url(as: role))
        for table in ["accounts", "sagas", "account_changes", "profiles"] {
            #expect(setup.refusal("SELECT 1 FROM \(table)", as: role) == nil, "reads \(table)")
            #expect(setup.refusal("DELETE FROM \(table)", as: role)?.contains("permission denied") == true, "writes \(table)")
        }
        for table in ["codes", "refresh_tokens", "token_families", "answers", "used_seals"] {
            #expect(setup.refusal("SELECT 1 FROM \(table)", as: role)?.contains("permission denied") == true, "reads \(table)")
        }
    }

    @Test func aRoleWithoutGrantsOrBehindTheSchemaIsToldToRunMigrate() throws {
        let setup = try Setup()
        let stranger = "t\(UUID().uuidString.prefix(8).lowercased())_stranger"
        try PostgresDatabase(url: setup.owner).execute(script: "CREATE ROLE \(stranger) LOGIN")
        let strangerURL = setup.owner.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(stranger)@")
        let ungranted = #expect(throws: StoreError.self) { try BackendOptions.profileStore(at: strangerURL) }
        #expect(ungranted?.message.contains("run `registrar migrate`") == true, "\(ungranted?.message ?? "")")

        // A newer build's migration not applied yet: the worker's role cannot apply it, and says so at once.
        try PostgresDatabase(url: setup.owner).execute(script: "UPDATE registrar_migrations SET version = version - 1 WHERE schema_name = 'profiles'")
        let behind = #expect(throws: StoreError.self) { try BackendOptions.profileStore(at: setup.url(as: .profileWorker)) }
        #expect(behind?.kind == .permanent)
        #expect(behind?.message.contains("may not change it") == true && behind?.message.contains("registrar migrate") == true,
                "\(behind?.message ?? "")")
    }
}
