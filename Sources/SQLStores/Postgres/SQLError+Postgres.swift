internal import CPostgres
import Domain

extension SQLError {
    /// The error of a failed command's `result`, its message ending in its SQLSTATE.
    init(result: OpaquePointer) {
        let sqlState = Self.field(PG_DIAG_SQLSTATE_CODE, of: result)
        let message = Self.field(PG_DIAG_MESSAGE_PRIMARY_CODE, of: result)
            ?? String(cString: PQresultErrorMessage(result)).trimmingWhitespace
        self.init(sqlState.map(StoreError.Kind.init(sqlState:)) ?? .transient,
                  sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message,
                  code: sqlState, isUniqueViolation: sqlState == "23505")
    }

    /// The error of `connection` after a call that returned no result or failed to connect: the
    /// connection is lost or could not be made, which is transient.
    init(connection: OpaquePointer) {
        self.init(.transient, String(cString: PQerrorMessage(connection)).trimmingWhitespace)
    }

    /// Whether the server refused a write because it is read-only (SQLSTATE 25006): a standby, or a
    /// primary being demoted or made read-only for maintenance.
    var isReadOnlyTransaction: Bool { code == "25006" }

    private static func field(_ code: Int32, of result: OpaquePointer) -> String? {
        PQresultErrorField(result, code).map { String(cString: $0) }
    }
}

/// `PG_DIAG_*` field codes, character literals in `postgres_ext.h` that Swift does not import.
private let PG_DIAG_SQLSTATE_CODE = Int32(UInt8(ascii: "C"))
private let PG_DIAG_MESSAGE_PRIMARY_CODE = Int32(UInt8(ascii: "M"))

extension StoreError.Kind {
    /// Whether an error with SQLSTATE `sqlState` may clear up if the operation is retried.
    ///
    /// Transient: connection exceptions (class 08), serialization failures and deadlocks (40001,
    /// 40P01), operator intervention (57P: the server shutting down, crashing or starting up, a
    /// database dropped under the connection), insufficient resources (class 53, e.g. 53100 disk full),
    /// a lock not available (55P03) and a write refused by a read-only server (25006: a failover or
    /// maintenance in progress), and a privilege the role lacks (42501: a grant missing for a worker's role, see
    /// `DatabaseAccess`, waits for the operator rather than dead-lettering requests). Permanent, everything else, among them integrity constraint
    /// violations (class 23), which the stores handle where they expect them.
    init(sqlState: String) {
        let transientClasses = ["08", "53", "57P"]
        let transient: Set<String> = ["40001", "40P01", "55P03", "25006", "42501"]
        self = transientClasses.contains(where: sqlState.hasPrefix) || transient.contains(sqlState) ? .transient : .permanent
    }
}

private extension String {
    var trimmingWhitespace: String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
