import Domain

/// A failure reported by a driver, classified for retries, or a caller's error passed through a
/// transaction; the stores' closures throw it, their callers see its `storeError`.
public struct SQLError: Error {
    public var kind: StoreError.Kind
    public var message: String
    /// The driver's code, e.g. a PostgreSQL SQLSTATE or a SQLite extended result code.
    public var code: String?
    /// Whether a unique or primary-key constraint refused the statement.
    public var isUniqueViolation: Bool
    /// A caller's error thrown inside a transaction, which reaches the caller unchanged.
    private var passed: StoreError?

    public init(_ kind: StoreError.Kind, _ message: String, code: String? = nil, isUniqueViolation: Bool = false) {
        self.kind = kind
        self.message = message
        self.code = code
        self.isUniqueViolation = isUniqueViolation
    }

    /// A caller's `error` thrown inside a transaction: it rolls the transaction back, is not retried
    /// (the caller's step decides that), and reaches the caller unchanged.
    public init(passing error: StoreError) {
        self.init(.permanent, error.message)
        passed = error
    }

    public var storeError: StoreError { passed ?? StoreError(kind, message) }
}
