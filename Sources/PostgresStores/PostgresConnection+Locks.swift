import Domain

extension PostgresConnection {
    /// Runs `body`, a caller's closure that throws `StoreError`s, inside a transaction: its errors
    /// roll the transaction back and reach the caller unchanged, without a retry.
    func passing<T>(_ body: () throws(StoreError) -> T) throws(PostgresError) -> T {
        do {
            return try body()
        } catch {
            throw PostgresError(passing: error)
        }
    }

    /// Holds until the transaction ends a lock on `key` of the lock space `space`, so that one
    /// read-modify-write of a row, which may not exist yet, waits for another of the same row.
    /// Keys are hashed: a rare collision only makes two unrelated writes wait for each other.
    func lock(_ key: String, in space: AdvisoryLockSpace) throws(PostgresError) {
        try execute("SELECT pg_advisory_xact_lock($1::integer, hashtext($2))", [space.rawValue, key])
    }

    /// Runs `body` under a savepoint inside a transaction: when it throws, its writes alone are rolled
    /// back and the transaction may go on.
    func savepoint<T>(_ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        try execute(script: "SAVEPOINT registrar")
        do {
            let result = try body()
            try execute(script: "RELEASE SAVEPOINT registrar")
            return result
        } catch {
            if !isBroken { try? execute(script: "ROLLBACK TO SAVEPOINT registrar") }
            throw error
        }
    }
}

/// The first key of the two-key advisory locks (`pg_advisory_xact_lock(integer, integer)`), one per
/// kind of row; apart from the one-key lock of the migrations.
enum AdvisoryLockSpace: Int {
    case codes = 1
    case signInFailures = 2
}
