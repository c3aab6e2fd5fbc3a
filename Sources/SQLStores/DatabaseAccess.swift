import Domain

/// What each worker, and the operator's tools, may do in the SQL databases, table by table: the one declaration from
/// which `registrar migrate` grants each one's database role its privileges (PostgreSQL), so that a worker's
/// credentials reach only its own tables. The schema itself belongs to the role that migrates it (the owner); these
/// roles run no DDL.
///
/// The image worker has no database at all, and the gateway none either. The code dispatch worker reaches only the
/// codes and its own answers (reading, keeping and forgetting them); the profile worker only the profiles and their revisions; the account worker everything of the account
/// database and, in the profile database, reads profiles (sign-in's login guard, profile reads). The operator's tools
/// (`registrar audit`, `status`, `console`) read the accounts, sagas, account changes and profiles, and write nothing.
public enum DatabaseAccess {
    /// Who connects to a database: the workers, by their names (their roles'), and the operator's tools (`operator`).
    public enum Worker: RawRepresentable, CaseIterable, Sendable {
        case accountWorker, codeDispatchWorker, profileWorker, operatorTools

        public init?(rawValue: String) {
            guard let worker = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = worker
        }

        public var rawValue: String {
            switch self {
            case .accountWorker: WorkerRole.account.workerName
            case .codeDispatchWorker: WorkerRole.codeDispatch.workerName
            case .profileWorker: WorkerRole.profile.workerName
            case .operatorTools: "operator"
            }
        }

        /// The role `registrar migrate` grants to unless told another: `registrar_account_worker`, ….
        public var defaultRole: String { "registrar_" + rawValue.split(separator: "-").joined(separator: "_") }
    }

    /// Which database a table lives in.
    public enum Database: String, Sendable {
        /// `--accounts`: accounts, sagas, sign-in state, account changes, answers, seals, codes, tokens.
        case accounts
        /// `--profiles`: the profiles and the revision of the last command applied to each.
        case profiles
    }

    public enum Privilege: String, Sendable {
        case select = "SELECT", insert = "INSERT", update = "UPDATE", delete = "DELETE"
    }

    /// Privileges on one table, limited to the rows whose `column` holds the worker's name when `ownRowsColumn` is set.
    public struct Grant: Sendable, Equatable {
        public var table: String
        public var database: Database
        public var privileges: [Privilege]
        public var ownRowsColumn: String?
    }

    /// The tables of each database, the migrations ledger included (which every worker reads to know the schema is current).
    public static let tables: [Database: [String]] = [
        .accounts: ["accounts", "sagas", "sign_in_failures", "account_changes", "deletions", "profile_updates", "code_failures", "used_seals", "answers",
                    "codes", "token_families", "refresh_tokens", "pending_sign_ins", SQLOutbox.accountsTable, SQLOutbox.effectsTable,
                    migrationsTable],
        .profiles: ["profiles", "profile_revisions", SQLOutbox.profilesTable, migrationsTable],
    ]

    /// The table counting each schema's migrations applied.
    public static let migrationsTable = "registrar_migrations"

    /// What `worker` may do, table by table.
    public static func grants(for worker: Worker) -> [Grant] {
        let all: [Privilege] = [.select, .insert, .update, .delete]
        let ledgers = [Database.accounts, .profiles].map { Grant(table: migrationsTable, database: $0, privileges: [.select]) }
        switch worker {
        case .accountWorker:
            return ["accounts", "sagas", "sign_in_failures", "account_changes", "deletions", "profile_updates", "code_failures", "used_seals", "codes",
                    "token_families", "refresh_tokens", "pending_sign_ins", SQLOutbox.accountsTable, SQLOutbox.effectsTable]
                .map { Grant(table: $0, database: .accounts, privileges: all) }
                + [Grant(table: "answers", database: .accounts, privileges: [.select, .insert, .delete], ownRowsColumn: "worker"),
                   Grant(table: "profiles", database: .profiles, privileges: [.select])] + ledgers
        case .codeDispatchWorker:
            return [Grant(table: "codes", database: .accounts, privileges: all),
                    Grant(table: "answers", database: .accounts, privileges: [.select, .insert, .delete], ownRowsColumn: "worker"),
                    ledgers[0]]
        case .profileWorker:
            return ["profiles", "profile_revisions", SQLOutbox.profilesTable].map { Grant(table: $0, database: .profiles, privileges: all) } + [ledgers[1]]
        case .operatorTools:
            return ["accounts", "sagas", "account_changes", "deletions", "profile_updates"].map { Grant(table: $0, database: .accounts, privileges: [.select]) }
                + [Grant(table: "profiles", database: .profiles, privileges: [.select])] + ledgers
        }
    }
}

extension DatabaseAccess.Grant {
    init(table: String, database: DatabaseAccess.Database, privileges: [DatabaseAccess.Privilege]) {
        self.init(table: table, database: database, privileges: privileges, ownRowsColumn: nil)
    }
}
