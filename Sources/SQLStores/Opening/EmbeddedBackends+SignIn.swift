import Accounts
import Backends
import Domain
import Foundation

/// The embedded stores of codes and sign-in.
extension EmbeddedBackends {
    /// The code store, in the account database (so that its writes join the answer memo's transaction).
    public func codes() throws -> any CodeStore {
        try SQLCodeStore(database: accountsDatabase())
    }

    /// The token store, in the account database (so that its writes join the answer memo's transaction).
    public func tokens() throws -> any TokenStore {
        try SQLTokenStore(database: accountsDatabase())
    }

    /// Moves the code and token stores of an older data directory, kept in files of their own
    /// (`codes.sqlite`, `tokens.sqlite`), into `database`, the account database, once.
    func importSeparateStores(into database: SQLiteDatabase) throws {
        guard FileManager.default.fileExists(atPath: directory) else { return }
        let layout = try self.layout()
        _ = try SQLAccountStore(database: database)
        _ = try SQLCodeStore(database: database)
        _ = try SQLTokenStore(database: database)
        try database.importRows(ofFileAt: layout.legacyCodesDatabase) { (old) throws(StoreError) in _ = try SQLCodeStore(database: old) }
        try database.importRows(ofFileAt: layout.legacyTokensDatabase) { (old) throws(StoreError) in _ = try SQLTokenStore(database: old) }
    }
}
