import Domain

extension PostgresDatabase {
    /// Whether a role named `role` exists on the server.
    public func roleExists(_ role: String) throws(StoreError) -> Bool {
        try withConnection { (connection) throws(SQLError) in
            !(try connection.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [.text(role)])).isEmpty
        }
    }

    /// Gives `role` exactly what `DatabaseAccess` lets `worker` do on the tables of `databases` (those this database
    /// holds: both when the accounts and the profiles share it), revoking whatever else it had on them, in one
    /// transaction. A grant limited to the worker's own rows gets a row-level security policy for `role`.
    /// Run by the tables' owner after migrating (`registrar migrate`).
    public func grant(_ worker: DatabaseAccess.Worker, to role: String, databases: Set<DatabaseAccess.Database>) throws(StoreError) {
        guard role.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }), role.first?.isLetter == true else {
            throw StoreError(.permanent, "role names are lowercase letters, digits and underscores: refusing '\(role)'")
        }
        let tables = Set(databases.flatMap { DatabaseAccess.tables[$0] ?? [] }).sorted()
        let grants = DatabaseAccess.grants(for: worker).filter { databases.contains($0.database) }
        try transaction { (db) throws(SQLError) in
            try db.execute(script: "REVOKE ALL ON \(tables.joined(separator: ", ")) FROM \(role)")
            for table in Set(grants.map(\.table)).sorted() {
                let privileges = Set(grants.filter { $0.table == table }.flatMap(\.privileges).map(\.rawValue)).sorted()
                try db.execute(script: "GRANT \(privileges.joined(separator: ", ")) ON \(table) TO \(role)")
            }
            for grant in grants {
                let policy = "registrar_\(role)_own_rows"
                try db.execute(script: "DROP POLICY IF EXISTS \(policy) ON \(grant.table)")
                guard let column = grant.ownRowsColumn else { continue }
                try db.execute(script: """
                    ALTER TABLE \(grant.table) ENABLE ROW LEVEL SECURITY;
                    CREATE POLICY \(policy) ON \(grant.table) TO \(role)
                        USING (\(column) = '\(worker.rawValue)') WITH CHECK (\(column) = '\(worker.rawValue)')
                    """)
            }
        }
    }
}
