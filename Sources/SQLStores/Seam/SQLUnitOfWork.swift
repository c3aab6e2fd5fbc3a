import Domain

/// One transaction shared by every store on one database while `perform` runs its work: the
/// stores' writes there commit together when the work returns, and none of them when it throws.
///
/// The transaction begins at the first store transaction (a write, a locking read), not before:
/// reads before it run on the unit's connection on their own, so work such as password hashing done
/// before the first write holds no lock. Each store transaction inside runs under a savepoint, so a
/// store that fails rolls back its own writes only, as it would alone. Nothing inside is retried;
/// a failure reaches the caller of `perform` (a worker retries the whole event).
final class SQLUnitOfWork: @unchecked Sendable {
    /// The unit the current task (or thread) works in, if any.
    @TaskLocal private static var current: SQLUnitOfWork?

    private let location: String
    private let session: SQLSession
    /// Whether the transaction has begun. Only the thread running the work reads or changes it.
    private var hasBegun = false

    private init(location: String, session: SQLSession) {
        self.location = location
        self.session = session
    }

    /// The unit the current work runs in when it is on `database`'s location.
    static func current(on database: any SQLDatabase) -> SQLUnitOfWork? {
        current.flatMap { $0.location == database.location ? $0 : nil }
    }

    /// Runs `work` in a unit of work on `database`, or in the current one when that is on the same
    /// location already, and commits the unit's transaction, if it began, when `work` returns.
    static func perform<T: Sendable>(on database: any SQLDatabase, _ work: () throws -> T) throws -> T {
        if current(on: database) != nil { return try work() }
        var failure: (any Error)?
        // Every failure is carried out of the driver's call as it is: a driver retries what fails
        // transiently, and the work (a whole step) is not the driver's to re-run.
        let result = try database.withOwnConnection { (connection) throws(SQLError) -> T? in
            let unit = SQLUnitOfWork(location: database.location, session: SQLSession(connection, database.dialect))
            do {
                let value = try $current.withValue(unit) { try work() }
                try unit.end("COMMIT")
                return value
            } catch {
                failure = error
                try? unit.end("ROLLBACK")
                return nil
            }
        }
        if let failure { throw (failure as? SQLError)?.storeError ?? failure }
        guard let result else { preconditionFailure("a unit of work without a result has a failure") }
        return result
    }

    /// Runs `body` on the unit's connection: in its transaction once that has begun, else on its own.
    func run<T>(_ body: (SQLSession) throws(SQLError) -> T) throws(StoreError) -> T {
        do {
            return try body(session)
        } catch {
            throw error.storeError
        }
    }

    /// Runs `body` in the unit's transaction, begun now if need be, under a savepoint.
    func runInTransaction<T>(_ body: (SQLSession) throws(SQLError) -> T) throws(StoreError) -> T {
        try run { (session) throws(SQLError) -> T in
            if !hasBegun {
                try session.connection.execute(script: session.dialect.begin)
                hasBegun = true
            }
            return try session.savepoint { () throws(SQLError) in try body(session) }
        }
    }

    /// Ends the transaction with `statement` (`COMMIT` or `ROLLBACK`), if it began.
    private func end(_ statement: String) throws(SQLError) {
        guard hasBegun else { return }
        try session.connection.execute(script: statement)
        hasBegun = false
    }
}
