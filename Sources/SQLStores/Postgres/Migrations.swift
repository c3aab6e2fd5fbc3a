import Domain

extension PostgresDatabase {
    /// The key of the advisory lock every migration holds: "Registra" in ASCII.
    static let migrationLock: Int64 = 0x5265_6769_7374_7261

    /// Applies the scripts of `migrations` that the schema `name` lacks, in one transaction.
    ///
    /// The table `registrar_migrations` counts the scripts applied per schema name. Replicas
    /// starting at once queue on a transaction-scoped advisory lock, so each script runs once.
    /// A schema already current is only read: a worker's role (`DatabaseAccess`), which may not change the
    /// schema, runs no DDL. One that is behind and a role that may not migrate it fail at once, saying to run
    /// `registrar migrate` with the owner's credentials.
    public func migrate(_ name: String, _ migrations: [String]) throws(StoreError) {
        let current = try appliedMigrations(name)
        if let current, current >= migrations.count { return }
        try transaction { (db) throws(SQLError) in
            do throws(SQLError) {
                try db.execute("SELECT pg_advisory_xact_lock($1)", [.integer(Self.migrationLock)])
                try db.execute(script: """
                    CREATE TABLE IF NOT EXISTS \(DatabaseAccess.migrationsTable) (
                        schema_name TEXT PRIMARY KEY,
                        version INTEGER NOT NULL
                    )
                    """)
                let version = try db.query("SELECT version FROM registrar_migrations WHERE schema_name = $1", [.text(name)]).first?.values.first
                let applied = if case .integer(let count)? = version { Int(count) } else { 0 }
                guard applied < migrations.count else { return }
                for script in migrations.dropFirst(applied) { try db.execute(script: script) }
                try db.execute("""
                    INSERT INTO registrar_migrations (schema_name, version) VALUES ($1, $2)
                    ON CONFLICT (schema_name) DO UPDATE SET version = EXCLUDED.version
                    """, [.text(name), .integer(Int64(migrations.count))])
            } catch {
                guard error.code == Self.insufficientPrivilege else { throw error }
                let state = current.map { "at version \($0) of \(migrations.count)" } ?? "not created yet"
                throw SQLError(.permanent, "the \(name) schema is \(state), and this database role may not change it (\(error.message)); "
                               + "run `registrar migrate` with the schema owner's credentials first", code: error.code)
            }
        }
    }

    /// How many of the schema `name`'s migrations were applied; nil when none ever was (no ledger, no row).
    private func appliedMigrations(_ name: String) throws(StoreError) -> Int? {
        try withConnection { (connection) throws(SQLError) -> Int? in
            let ledger = try connection.query("SELECT to_regclass($1) IS NOT NULL", [.text(DatabaseAccess.migrationsTable)])
            guard case .integer(1)? = ledger.first?.values.first else { return nil }
            do throws(SQLError) {
                let version = try connection.query("SELECT version FROM registrar_migrations WHERE schema_name = $1", [.text(name)])
                guard case .integer(let count)? = version.first?.values.first else { return nil }
                return Int(count)
            } catch {
                guard error.code == Self.insufficientPrivilege else { throw error }
                throw SQLError(.permanent, "this database role may not read which migrations the \(name) schema has (\(error.message)); "
                               + "run `registrar migrate` with the schema owner's credentials, which grants each worker's role its tables",
                               code: error.code)
            }
        }
    }

    /// SQLSTATE 42501: the role lacks a privilege the statement needs.
    static let insufficientPrivilege = "42501"
}
