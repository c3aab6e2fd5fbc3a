import Domain
import SQLStores

extension PostgresDatabase {
    /// The key of the advisory lock every migration holds: "Registra" in ASCII.
    static let migrationLock: Int64 = 0x5265_6769_7374_7261

    /// Applies the scripts of `migrations` that the schema `name` lacks, in one transaction.
    ///
    /// The table `registrar_migrations` counts the scripts applied per schema name. Replicas
    /// starting at once queue on a transaction-scoped advisory lock, so each script runs once.
    public func migrate(_ name: String, _ migrations: [String]) throws(StoreError) {
        try transaction { (db) throws(SQLError) in
            try db.execute("SELECT pg_advisory_xact_lock($1)", [.integer(Self.migrationLock)])
            try db.execute(script: """
                CREATE TABLE IF NOT EXISTS registrar_migrations (
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
        }
    }
}
