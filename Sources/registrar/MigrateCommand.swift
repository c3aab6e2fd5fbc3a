import Backends
import SQLStores
import Support

/// `registrar migrate`: with the schema owner's credentials, creates or migrates the account and profile databases,
/// then grants each worker's PostgreSQL role its `DatabaseAccess` (roles that do not exist are reported, not made:
/// their passwords are the database administrator's). Workers then connect as their roles and run no DDL.
enum MigrateCommand {
    static let spec = CommandSpec(
        name: "registrar migrate",
        summary: "create or migrate the databases as their owner, then grant each worker's role its tables",
        usage: "--accounts postgres://owner@… --profiles postgres://owner@… [--role WORKER=ROLE]…",
        options: Array(BackendOptions.specs.prefix(2)) + [
            .value("role", "A worker's database role, WORKER=ROLE (default: "
                   + DatabaseAccess.Worker.allCases.map { "\($0.rawValue)=\($0.defaultRole)" }.joined(separator: ", ") + ")",
                   repeatable: true),
        ])

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let accounts = parsed.value("accounts")
            let profiles = parsed.value("profiles")
            guard accounts != nil || profiles != nil else {
                throw UsageError.invalid("give --accounts and/or --profiles (the owner's URLs)", spec.helpText)
            }
            var roles: [DatabaseAccess.Worker: String] = [:]
            for entry in parsed.values("role") {
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let worker = DatabaseAccess.Worker(rawValue: parts[0]) else {
                    throw UsageError.invalid("--role expects WORKER=ROLE with WORKER one of "
                                             + DatabaseAccess.Worker.allCases.map(\.rawValue).joined(separator: ", "), spec.helpText)
                }
                roles[worker] = parts[1]
            }
            try DatabaseSetup.migrate(accounts: accounts, profiles: profiles)
            print("migrated: " + [accounts.map { _ in "accounts, codes, tokens" }, profiles.map { _ in "profiles" }].compactMap { $0 }.joined(separator: "; "))
            for line in try DatabaseSetup.grant(accounts: accounts, profiles: profiles, roles: roles) { print(line) }
            return .success
        }
    }
}
