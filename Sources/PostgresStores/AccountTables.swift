import Domain
import Registration

/// The schema of the account store, one migration per entry (append only). Keys and emails compare
/// and sort bytewise (`COLLATE "C"`), as in the SQLite store; dates are Unix seconds.
let accountStoreMigrations = [
    """
    CREATE TABLE accounts (
        uid TEXT COLLATE "C" PRIMARY KEY,
        email TEXT COLLATE "C" NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        status TEXT NOT NULL,
        registration_id TEXT COLLATE "C" NOT NULL,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE sagas (
        registration_id TEXT COLLATE "C" PRIMARY KEY,
        uid TEXT COLLATE "C" NOT NULL,
        email TEXT COLLATE "C" NOT NULL,
        name TEXT NOT NULL,
        is_map_location_enabled BOOLEAN NOT NULL,
        image_id TEXT NOT NULL,
        image_url TEXT,
        stage TEXT NOT NULL,
        failure_reason TEXT,
        failure_message TEXT,
        version BIGINT NOT NULL,
        started_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX sagas_by_stage ON sagas (stage, updated_at);
    """,
    """
    CREATE TABLE sign_in_failures (
        uid TEXT COLLATE "C" PRIMARY KEY,
        consecutive INTEGER NOT NULL,
        locked_until DOUBLE PRECISION
    );
    CREATE TABLE account_changes (
        request_id TEXT COLLATE "C" PRIMARY KEY,
        uid TEXT COLLATE "C" NOT NULL,
        kind TEXT NOT NULL,
        old_email TEXT COLLATE "C" NOT NULL,
        new_email TEXT COLLATE "C" NOT NULL,
        stage TEXT NOT NULL,
        failure_reason TEXT,
        failure_message TEXT,
        updated_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX account_changes_by_stage ON account_changes (stage, updated_at);
    """,
]

extension Account: PostgresRecord {
    static let table = "accounts"
    static let columns = ["uid", "email", "password_hash", "status", "registration_id", "created_at"]

    init(row: PostgresRow) throws(PostgresError) {
        self.init(uid: try row[0], email: try row[1], passwordHash: try row[2], status: try row[3],
                  registrationId: try row[4], createdAt: try row[5])
    }

    var values: [any PostgresValueConvertible] { [uid, email, passwordHash, status, registrationId, createdAt] }
}

extension SagaRecord: PostgresRecord {
    static let table = "sagas"
    static let columns = [
        "registration_id", "uid", "email", "name", "is_map_location_enabled", "image_id", "image_url", "stage",
        "failure_reason", "failure_message", "version", "started_at", "updated_at",
    ]

    init(row: PostgresRow) throws(PostgresError) {
        let reason: ReasonCode? = try row[8]
        let message: String? = try row[9]
        self.init(registrationId: try row[0], uid: try row[1], email: try row[2], name: try row[3],
                  isMapLocationEnabled: try row[4], imageId: try row[5], imageURL: try row[6], stage: try row[7],
                  failure: reason.map { Failure($0, message ?? "") }, version: try row[10],
                  startedAt: try row[11], updatedAt: try row[12])
    }

    var values: [any PostgresValueConvertible] {
        [registrationId, uid, email, name, isMapLocationEnabled, imageId, imageURL, stage,
         failure?.reason, failure?.message, version, startedAt, updatedAt]
    }

    /// Saves every column but the key if the stored version is the one before: binds `values` after
    /// the key, then the key and `version - 1`.
    static let compareAndSet = "UPDATE sagas SET "
        + columns.dropFirst().enumerated().map { "\($1) = $\($0 + 1)" }.joined(separator: ", ")
        + " WHERE registration_id = $\(columns.count) AND version = $\(columns.count + 1)"
}
