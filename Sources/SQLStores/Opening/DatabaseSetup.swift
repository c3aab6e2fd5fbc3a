import Backends
import Domain

/// What `registrar migrate` does with the schema owner's credentials: creates or migrates every schema of the
/// account and profile databases, then gives each worker's PostgreSQL role exactly its `DatabaseAccess`.
public enum DatabaseSetup {
    /// Creates or migrates every schema of the databases at `accounts` and `profiles` (either may be nil).
    public static func migrate(accounts: String?, profiles: String?) throws {
        if let accounts {
            _ = try BackendOptions.accountChangeStore(at: accounts)
            _ = try BackendOptions.codeStore(at: accounts)
            _ = try BackendOptions.tokenStore(at: accounts)
        }
        if let profiles { _ = try BackendOptions.profileStore(at: profiles) }
    }

    /// Grants each worker's role (`roles[worker]`, else `DatabaseAccess.Worker.defaultRole`) its access on the
    /// PostgreSQL databases at `accounts` and `profiles`; a role that does not exist is skipped. Returns what was
    /// done, a line per role and database.
    public static func grant(accounts: String?, profiles: String?, roles: [DatabaseAccess.Worker: String] = [:]) throws -> [String] {
        var databases: [(url: String, kinds: Set<DatabaseAccess.Database>)] = []
        if let accounts, accounts == profiles {
            databases = [(accounts, [.accounts, .profiles])]
        } else {
            databases = [accounts.map { ($0, [.accounts]) }, profiles.map { ($0, [.profiles]) }].compactMap { $0 }
        }
        var report: [String] = []
        for (url, kinds) in databases where try StoreURL(url, accepting: [.postgres, .sqlite]).scheme == .postgres {
            let database = PostgresDatabase(url: url)
            for worker in DatabaseAccess.Worker.allCases {
                let tables = DatabaseAccess.grants(for: worker).filter { kinds.contains($0.database) }
                guard tables.contains(where: { $0.table != DatabaseAccess.migrationsTable }) else { continue }
                let role = roles[worker] ?? worker.defaultRole
                let place = kinds.map(\.rawValue).sorted().joined(separator: " and ") + " database"
                guard try database.roleExists(role) else {
                    report.append("\(worker.rawValue): no role \(role) on the \(place); nothing granted (create it and run again)")
                    continue
                }
                try database.grant(worker, to: role, databases: kinds)
                var listed = Set<String>()
                let granted = tables.filter { listed.insert($0.table).inserted }.map { "\($0.table) (\($0.privileges.map(\.rawValue).joined(separator: ", "))\($0.ownRowsColumn == nil ? "" : ", own rows"))" }
                report.append("\(worker.rawValue): \(role) on the \(place): " + granted.joined(separator: "; "))
            }
        }
        return report
    }
}
