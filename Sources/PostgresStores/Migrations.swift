import Domain

extension PostgresDatabase {
    /// The key of the advisory lock every migration holds: "Registra" in ASCII.
    static let migrationLock = 0x5265_6769_7374_7261

    /// Applies the scripts of `migrations` that the schema `name` lacks, in one transaction.
    ///
    /// The table `registrar_migrations` counts the scripts applied per schema name, so only ever
    /// append to the list; a schema at a higher version (a newer build's) is left alone. Replicas
    /// starting at once queue on a transaction-scoped advisory lock, so each script runs once.
    func migrate(_ name: String, _ migrations: [String]) throws(StoreError) {
        try transaction { (db) throws(PostgresError) in
            try db.execute("SELECT pg_advisory_xact_lock($1)", [Self.migrationLock])
            try db.execute(script: """
                CREATE TABLE IF NOT EXISTS registrar_migrations (
                    schema_name TEXT PRIMARY KEY,
                    version INTEGER NOT NULL
                )
                """)
            let version = try db.query("SELECT version FROM registrar_migrations WHERE schema_name = $1", [name]) {
                (row) throws(PostgresError) -> Int in try row[0]
            }.first ?? 0
            guard version < migrations.count else { return }
            for script in migrations.dropFirst(version) { try db.execute(script: script) }
            try db.execute("""
                INSERT INTO registrar_migrations (schema_name, version) VALUES ($1, $2)
                ON CONFLICT (schema_name) DO UPDATE SET version = EXCLUDED.version
                """, [name, migrations.count])
        }
    }
}
