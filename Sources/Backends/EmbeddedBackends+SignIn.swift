import Courier
import Domain
import EmbeddedStores
import SignIn
import SQLiteDriver
import SQLStores
import Verification

/// The embedded stores and key files of codes and sign-in.
extension EmbeddedBackends {
    public func codes() throws -> any CodeStore {
        try SQLCodeStore(database: SQLiteDatabase(path: try DataDirectory(directory).codesDatabase))
    }

    public func tokens() throws -> any TokenStore {
        try SQLTokenStore(database: SQLiteDatabase(path: try DataDirectory(directory).tokensDatabase))
    }

    /// The file outbox: one `.eml` file per message in `<data>/outbox`.
    public func mailer() throws -> any Mailer {
        try FileOutbox(directory: try DataDirectory(directory).outbox)
    }

    /// The path of the server secret that keys code hashes (0600), shared by the code dispatch and account workers.
    public func codeSecretKey() throws -> String { try DataDirectory(directory).keys + "/" + KeyFileName.codeSecret }
    /// The path of the account worker's access-token signing key (secret; 0600).
    public func signingKey() throws -> String { try DataDirectory(directory).keys + "/" + KeyFileName.signing }
}
