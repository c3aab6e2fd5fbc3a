import Backends
import Crypto
import Domain
import Foundation
import Registration
import S3Store
import SQLStores
import Support

/// Where a `LiveSystem`'s stores live. The embedded defaults (SQLite and files in the data
/// directory, emails in the file outbox), or — when `REGISTRAR_E2E_BACKENDS=production` — a fresh
/// PostgreSQL database on a real PostgreSQL 15, a fresh bucket on a real S3-protocol server (moto)
/// and a real SMTP server (aiosmtpd), so that the same end-to-end suites run unchanged against the
/// production backends.
struct StoreLocation: Sendable {
    /// The URLs the workers and the CLI are given (as `REGISTRAR_*` variables); empty when embedded.
    let environment: [String: String]
    let options: BackendOptions
    /// The SMTP server the workers send email to, in production mode.
    let mailServer: SMTPServer?

    static var productionRequested: Bool { ProcessInfo.processInfo.environment["REGISTRAR_E2E_BACKENDS"] == "production" }

    /// The stores of a system whose data directory is `directory`: production ones when requested
    /// or when a PostgreSQL server of the test's own is given.
    /// With `relayingImages`, the object store is reached through an HTTP relay in front of moto (to inject faults).
    /// With `mailServer`, email goes to a real SMTP server even when production stores were not requested.
    static func make(for directory: String, postgres: PostgresServer? = nil,
                     relayingImages: ((_ motoPort: Int) throws -> HTTPRelay)? = nil, mailServer: Bool = false) throws -> StoreLocation {
        guard productionRequested || postgres != nil || relayingImages != nil else {
            return StoreLocation(environment: [:], options: BackendOptions(dataDirectory: directory), mailServer: nil)
        }
        let database = try (postgres ?? PostgresServer.shared()).newDatabase()
        let bucket = "e2e-\(UUID().uuidString.prefix(8).lowercased())"
        let moto = try sharedMoto.get()
        try createBucket(bucket, at: moto.endpoint)
        let endpoint = try relayingImages?(moto.port).endpoint ?? moto.endpoint
        let images = "s3://\(bucket)?endpoint=\(endpoint)&region=us-east-1&path-style=true"
        let mailServer = productionRequested || mailServer ? try SMTPServer() : nil
        let mail = mailServer.map { "smtp://127.0.0.1:\($0.port)?tls=none&connect-timeout=2&timeout=10" }
        var environment = ["REGISTRAR_ACCOUNTS": database, "REGISTRAR_PROFILES": database, "REGISTRAR_IMAGES": images,
                           "AWS_ACCESS_KEY_ID": "e2e", "AWS_SECRET_ACCESS_KEY": "e2e-secret", "AWS_REGION": "us-east-1"]
        environment["REGISTRAR_MAIL"] = mail
        for (name, value) in environment where name.hasPrefix("AWS_") { setenv(name, value, 1) }
        return StoreLocation(environment: environment,
                             options: BackendOptions(accounts: database, profiles: database, images: images, mail: mail,
                                                     dataDirectory: directory),
                             mailServer: mailServer)
    }

    func accounts() throws -> any AccountStore { try options.accountStore() }
    func profiles() throws -> any ProfileStore { try options.profileStore() }
    func objects() throws -> any ObjectStore { try options.objectStore() }
    func sealLedger() throws -> any SealLedger { try options.sealLedger() }

    /// Runs `sql` against the profile store (SQLite in the data directory, or PostgreSQL).
    func executeOnProfiles(sqlite: String, postgres: String, logs: String) async throws {
        let process = if let database = options.profiles {
            try ChildProcess("/usr/bin/psql", [database, "-q", "-v", "ON_ERROR_STOP=1", "-c", postgres], errors: .file("\(logs)/sql.log"))
        } else {
            try ChildProcess("/usr/bin/sqlite3", ["-cmd", ".timeout 10000", options.dataDirectory + "/profiles.sqlite", sqlite], errors: .file("\(logs)/sql.log"))
        }
        guard await process.waitForExit() == 0 else { throw HarnessError("SQL failed: see \(logs)/sql.log") }
    }

    /// Runs `sql` on the account database (the same statement in both dialects).
    func executeOnAccounts(_ sql: String, logs: String) async throws {
        let process = if let database = options.accounts {
            try ChildProcess("/usr/bin/psql", [database, "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], errors: .file("\(logs)/sql.log"))
        } else {
            try ChildProcess("/usr/bin/sqlite3", ["-cmd", ".timeout 10000", options.dataDirectory + "/accounts.sqlite", sql], errors: .file("\(logs)/sql.log"))
        }
        guard await process.waitForExit() == 0 else { throw HarnessError("SQL failed: see \(logs)/sql.log") }
    }

    /// Starts holding the profile store's write lock (readers go on) and returns once it is held; writes wait,
    /// or fail as transient, until `releaseProfiles` is called with the process returned.
    func lockProfiles(logs: String) async throws -> ChildProcess {
        let process = if let database = options.profiles {
            try ChildProcess("/usr/bin/psql", [database, "-qAt", "-v", "ON_ERROR_STOP=1"], input: .pipe, errors: .file("\(logs)/sql.log"))
        } else {
            try ChildProcess("/usr/bin/sqlite3", ["-cmd", ".timeout 10000", options.dataDirectory + "/profiles.sqlite"], input: .pipe, errors: .file("\(logs)/sql.log"))
        }
        let lock = options.profiles == nil ? "BEGIN IMMEDIATE;" : "BEGIN; LOCK TABLE profiles IN EXCLUSIVE MODE;"
        process.write(Array("\(lock)\nSELECT 'locked';\n".utf8))
        guard await process.nextLine() == "locked" else { throw HarnessError("the profile store was not locked: see \(logs)/sql.log") }
        return process
    }

    /// Lets the writes `lockProfiles` held up go on.
    func releaseProfiles(_ process: ChildProcess) async {
        process.write(Array("COMMIT;\n".utf8))
        process.closeInput()
        _ = await process.waitForExit()
    }

    private static let sharedMoto = Result { try MotoServer() }

    private static func createBucket(_ bucket: String, at endpoint: String) throws {
        try runCommand("/usr/bin/curl", ["-sSf", "-X", "PUT", "\(endpoint)/\(bucket)"])
    }

    /// The emails sent so far, as raw RFC 5322 text: from the SMTP server, or the file outbox.
    func emails() throws -> [String] {
        if let mailServer { return try mailServer.messages() }
        let outbox = options.dataDirectory + "/outbox"
        // The outbox is made by the first mail.
        guard FileManager.default.fileExists(atPath: outbox) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: outbox).filter { $0.hasSuffix(".eml") }
            .map { try String(contentsOfFile: outbox + "/" + $0, encoding: .utf8) }
    }
}
