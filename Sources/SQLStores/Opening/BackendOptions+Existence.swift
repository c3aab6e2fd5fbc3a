import Backends
import Foundation

extension BackendOptions {
    /// The stores of accounts, profiles and images that do not exist, each said in a line: what a command that
    /// only reads them (the audit, the console) refuses, rather than creating them empty and finding nothing wrong.
    /// An embedded store needs its data directory and file; a PostgreSQL one its database and table (a database
    /// that cannot be reached throws); an S3 bucket is not checked here (reading a missing one fails anyway).
    public func missingStores() throws -> [String] {
        let layout = DataDirectory(layoutOf: dataDirectory)
        if [accounts, profiles, images].contains(where: { $0 == nil }), !FileManager.default.fileExists(atPath: dataDirectory) {
            return ["no data directory '\(dataDirectory)' (the embedded stores are there; see --data-dir)"]
        }
        var missing: [String] = []
        for (name, url, file, table) in [("accounts", accounts, layout.accountsDatabase, "accounts"), ("profiles", profiles, layout.profilesDatabase, "profiles")] {
            let location = try url.map { try StoreURL($0, accepting: [.postgres, .sqlite]) }
            switch location?.scheme {
            case .postgres?:
                if try !Self.table(table, existsAt: url!) { missing.append("no \(name) store at the --\(name) database (no table \(table))") }
            case .sqlite?:
                if !FileManager.default.fileExists(atPath: location!.path) { missing.append("no \(name) store at \(location!.path)") }
            default:
                if !FileManager.default.fileExists(atPath: file) { missing.append("no \(name) store at \(file)") }
            }
        }
        let images = try images.map { try StoreURL($0, accepting: [.s3, .file]) }
        if images?.scheme != .s3, case let directory = images?.path ?? layout.objects, !FileManager.default.fileExists(atPath: directory) {
            missing.append("no image store at \(directory)")
        }
        return missing
    }

    /// Whether the PostgreSQL database at `url` has `table`; throws when it cannot be reached.
    private static func table(_ table: String, existsAt url: String) throws -> Bool {
        try PostgresDatabase(url: url).withConnection { connection in
            do {
                _ = try connection.query("SELECT 1 FROM \(table) LIMIT 1", [])
                return true
            } catch {
                return false
            }
        }
    }
}
