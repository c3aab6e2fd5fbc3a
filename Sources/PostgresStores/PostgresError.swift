import CPostgres
import Domain

/// A failure reported by libpq or the server, with its SQLSTATE, classified for retries.
struct PostgresError: Error {
    var kind: StoreError.Kind
    /// The five-character SQLSTATE; nil when the server gave none (the connection failed).
    var sqlState: String?
    /// The constraint a violation broke, e.g. `accounts_email_key`.
    var constraint: String?
    var message: String
    /// A caller's error thrown inside a transaction, which reaches the caller unchanged.
    private var passed: StoreError?

    init(_ kind: StoreError.Kind, _ message: String, sqlState: String? = nil, constraint: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.constraint = constraint
        self.message = message
    }

    /// The error of a failed command's `result`.
    init(result: OpaquePointer) {
        let sqlState = Self.field(PG_DIAG_SQLSTATE_CODE, of: result)
        let message = Self.field(PG_DIAG_MESSAGE_PRIMARY_CODE, of: result)
            ?? String(cString: PQresultErrorMessage(result)).trimmingWhitespace
        self.init(sqlState.map(StoreError.Kind.init(sqlState:)) ?? .transient, message, sqlState: sqlState,
                  constraint: Self.field(PG_DIAG_CONSTRAINT_NAME_CODE, of: result))
    }

    /// The error of `connection` after a call that returned no result or failed to connect: the
    /// connection is lost or could not be made, which is transient.
    init(connection: OpaquePointer) {
        self.init(.transient, String(cString: PQerrorMessage(connection)).trimmingWhitespace)
    }

    /// A caller's `error` thrown inside a transaction: it rolls the transaction back, is not retried
    /// (the caller's step decides that), and reaches the caller unchanged.
    init(passing error: StoreError) {
        self.init(.permanent, error.message)
        passed = error
    }

    /// Whether a unique constraint refused the statement (SQLSTATE 23505).
    var isUniqueViolation: Bool { sqlState == "23505" }

    /// Whether the server refused a write because it is read-only (SQLSTATE 25006): a standby, or a
    /// primary being demoted or made read-only for maintenance.
    var isReadOnlyTransaction: Bool { sqlState == "25006" }

    var storeError: StoreError {
        passed ?? StoreError(kind, sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message)
    }

    private static func field(_ code: Int32, of result: OpaquePointer) -> String? {
        PQresultErrorField(result, code).map { String(cString: $0) }
    }
}

/// `PG_DIAG_*` field codes, character literals in `postgres_ext.h` that Swift does not import.
private let PG_DIAG_SQLSTATE_CODE = Int32(UInt8(ascii: "C"))
private let PG_DIAG_MESSAGE_PRIMARY_CODE = Int32(UInt8(ascii: "M"))
private let PG_DIAG_CONSTRAINT_NAME_CODE = Int32(UInt8(ascii: "n"))

extension StoreError.Kind {
    /// Whether an error with SQLSTATE `sqlState` may clear up if the operation is retried.
    ///
    /// Transient: connection exceptions (class 08), serialization failures and deadlocks (40001,
    /// 40P01), the server shutting down, crashing or starting up (57P01, 57P02, 57P03), insufficient
    /// resources (class 53), a lock not available (55P03) and a write refused by a read-only server
    /// (25006: a failover or maintenance in progress). Permanent, everything else, among them
    /// integrity constraint violations (class 23), which the stores handle where they expect them.
    init(sqlState: String) {
        let transient: Set<String> = ["40001", "40P01", "57P01", "57P02", "57P03", "55P03", "25006"]
        self = sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || transient.contains(sqlState) ? .transient : .permanent
    }
}

private extension String {
    var trimmingWhitespace: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
