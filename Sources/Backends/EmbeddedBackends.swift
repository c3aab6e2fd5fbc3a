
/// The stores of one installation on the embedded defaults: SQLite databases and files, all in one
/// data directory, and its key files. Each accessor opens the store (`SQLStores` the databases, `S3Store` the
/// objects, `SMTPCourier` the outbox); callers keep what they open.
public struct EmbeddedBackends: Sendable {
    public let directory: String

    public init(_ directory: String) {
        self.directory = directory
    }

    /// The key files' directory, `<data>/keys` (0700, created with the first key).
    public var keysDirectory: String { directory + "/keys" }
    /// The path of the account worker's sealing key (secret; 0600), creating the data directory.
    public func sealingKey() throws -> String { try layout().keys + "/" + KeyFileName.sealing }
    /// The path of the public half of the sealing key, which clients seal passwords to.
    public var sealingPublicKey: String { keysDirectory + "/" + KeyFileName.sealing + ".pub" }
    /// The path of the server secret that keys code hashes (0600), shared by the code dispatch and account workers.
    public func codeSecretKey() throws -> String { try layout().keys + "/" + KeyFileName.codeSecret }
    /// The path of the account worker's access-token signing key (secret; 0600).
    public func signingKey() throws -> String { try layout().keys + "/" + KeyFileName.signing }

    /// The data directory's layout, creating the directory.
    package func layout() throws -> DataDirectory { try DataDirectory(directory) }
}
