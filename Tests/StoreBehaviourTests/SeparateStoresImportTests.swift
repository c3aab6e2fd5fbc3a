import Backends
import Domain
import Foundation
import Registration
import SignIn
import SQLStores
@testable import TestSupport
import Testing
import Verification

/// A data directory of an older build kept the codes and the tokens in files of their own (`codes.sqlite`,
/// `tokens.sqlite`), each schema counted in its file's `user_version`: the first open of the account
/// database takes them in, once, and keeps every record.
@Suite(.tags(.production)) struct SeparateStoresImportTests {
    @Test func theFirstOpenImportsTheCodeAndTokenFilesOnce() throws {
        try withTemporaryDirectory { directory in
            let code = CodeRecord(email: "ada@example.com", purpose: .login, digest: String(repeating: "cd", count: 32),
                                  issuedBy: "r1", expiresAt: startDate.addingTimeInterval(600), sentAt: [startDate])
            let token = RefreshToken(digest: "d1", family: "f1", uid: "uid-1", issuedBy: "q0", issuedAt: startDate,
                                     expiresAt: startDate.addingTimeInterval(86_400))
            try olderFile("\(directory)/accounts.sqlite", schema: "accounts") {
                _ = try SQLAccountStore(database: $0).start(sagaRecord("r1"), account: pendingAccount(for: sagaRecord("r1")))
            }
            try olderFile("\(directory)/codes.sqlite", schema: "codes") {
                try SQLCodeStore(database: $0).update(email: code.email, purpose: code.purpose) { (record) throws(StoreError) in record = code }
            }
            try olderFile("\(directory)/tokens.sqlite", schema: "tokens") { try SQLTokenStore(database: $0).store(token) }

            // The code dispatch worker may open the account database first, through the code store.
            let codes = try EmbeddedBackends(directory).codes()
            let (tokens, accounts) = (try EmbeddedBackends(directory).tokens(), try EmbeddedBackends(directory).accounts())
            #expect(try codes.update(email: code.email, purpose: code.purpose) { (record) throws(StoreError) in record } == code)
            #expect(try tokens.token(digest: "d1") == token)
            #expect(try accounts.saga("r1") == sagaRecord("r1"))
            let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(!files.contains("codes.sqlite") && !files.contains("tokens.sqlite"), "\(files)")
            #expect(files.contains("codes.sqlite.imported") && files.contains("tokens.sqlite.imported"), "\(files)")

            // Later opens import nothing again, and keep what was written since.
            try tokens.store(RefreshToken(digest: "d2", family: "f1", uid: "uid-1", issuedBy: "q1", issuedAt: startDate,
                                          expiresAt: startDate.addingTimeInterval(86_400)))
            #expect(try EmbeddedBackends(directory).tokens().token(digest: "d2") != nil)
            #expect(try EmbeddedBackends(directory).codes().update(email: code.email, purpose: code.purpose) {
                (record) throws(StoreError) in record } == code)
        }
    }

    /// Makes the file at `path` as an older build left it: `fill` writes through a store of `schema`, whose
    /// migration count then moves into `user_version`, where such a build kept it.
    private func olderFile(_ path: String, schema: String, _ fill: (SQLiteDatabase) throws -> Void) throws {
        let database = try SQLiteDatabase(path: path)
        try fill(database)
        let version = try database.withConnection { (db) throws(SQLError) in
            try db.query("SELECT version FROM registrar_migrations WHERE schema_name = ?", [.text(schema)]).first?.values.first
        }
        guard case .integer(let count)? = version else { throw HarnessFailure("no \(schema) schema in \(path)") }
        try database.execute(script: "DROP TABLE registrar_migrations; PRAGMA user_version = \(count);")
    }

    struct HarnessFailure: Error { var message: String; init(_ message: String) { self.message = message } }
}
