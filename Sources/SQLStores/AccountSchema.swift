import Accounts
import Domain

/// The account database's schema: accounts and sagas, sign-in failures (wrong passwords; wrong codes in
/// `code_failures`), account changes and deletions, the answers given to requests (by request topic and id, with their time),
/// the request ids whose seals were used, the outbox of the account events its changes announce, and the outbox of the
/// side effects its sagas' moves keep (`effect_outbox`: the welcome mail). PostgreSQL keys and emails compare and sort bytewise
/// (`COLLATE "C"`), as SQLite's do; dates are Unix seconds in both. Profile updates (``ProfileUpdateRecord``) too.
let accountSchema = SQLSchema(
    name: "accounts",
    sqlite: [
        """
        CREATE TABLE accounts (
            uid TEXT PRIMARY KEY NOT NULL,
            email TEXT NOT NULL UNIQUE,
            password_hash TEXT NOT NULL,
            status TEXT NOT NULL,
            registration_id TEXT NOT NULL,
            created_at REAL NOT NULL
        ) STRICT;
        CREATE TABLE sagas (
            registration_id TEXT PRIMARY KEY NOT NULL,
            uid TEXT NOT NULL,
            email TEXT NOT NULL,
            name TEXT NOT NULL,
            is_map_location_enabled INTEGER NOT NULL,
            image_id TEXT NOT NULL,
            image_url TEXT,
            stage TEXT NOT NULL,
            failure_reason TEXT,
            failure_message TEXT,
            version INTEGER NOT NULL,
            started_at REAL NOT NULL,
            updated_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX sagas_by_stage ON sagas (stage, updated_at);
        """,
        """
        CREATE TABLE sign_in_failures (
            uid TEXT PRIMARY KEY NOT NULL,
            consecutive INTEGER NOT NULL,
            locked_until REAL
        ) STRICT;
        CREATE TABLE account_changes (
            request_id TEXT PRIMARY KEY NOT NULL,
            uid TEXT NOT NULL,
            kind TEXT NOT NULL,
            old_email TEXT NOT NULL,
            new_email TEXT NOT NULL,
            stage TEXT NOT NULL,
            failure_reason TEXT,
            failure_message TEXT,
            updated_at REAL NOT NULL
        ) STRICT;
        CREATE INDEX account_changes_by_stage ON account_changes (stage, updated_at);
        """,
        """
        CREATE TABLE answers (
            worker TEXT NOT NULL,
            request_id TEXT NOT NULL,
            answer TEXT NOT NULL,
            PRIMARY KEY (worker, request_id)
        ) STRICT;
        """,
        """
        CREATE TABLE code_failures (
            uid TEXT PRIMARY KEY NOT NULL,
            consecutive INTEGER NOT NULL,
            locked_until REAL
        ) STRICT;
        """,
        """
        CREATE TABLE used_seals (
            request_id TEXT PRIMARY KEY NOT NULL,
            digest TEXT NOT NULL,
            used_at REAL NOT NULL
        ) STRICT;
        """,
        """
        ALTER TABLE sagas ADD COLUMN reply_key TEXT NOT NULL DEFAULT '';
        ALTER TABLE sagas ADD COLUMN sealed_result TEXT;
        """,
        "CREATE INDEX used_seals_by_time ON used_seals (used_at);",
        accountOwnership(real: "REAL", integer: "INTEGER"),
        answersByTopic(table: "STRICT", real: "REAL", collation: "", answerType: "json_extract(answer, '$.type')",
                       now: "CAST(strftime('%s', 'now') AS REAL)"),
        deletions(table: "STRICT", real: "REAL", integer: "INTEGER", collation: ""),
        profileUpdates(table: "STRICT", real: "REAL", integer: "INTEGER", boolean: "INTEGER", collation: ""),
        SQLOutbox.migration(table: SQLOutbox.accountsTable, postgres: false),
        SQLOutbox.migration(table: SQLOutbox.effectsTable, postgres: false),
        SQLEffectOutbox.claims(real: "REAL"),
    ],
    postgres: [
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
        """
        CREATE TABLE answers (
            worker TEXT COLLATE "C" NOT NULL,
            request_id TEXT COLLATE "C" NOT NULL,
            answer TEXT NOT NULL,
            PRIMARY KEY (worker, request_id)
        );
        """,
        """
        CREATE TABLE code_failures (
            uid TEXT COLLATE "C" PRIMARY KEY,
            consecutive INTEGER NOT NULL,
            locked_until DOUBLE PRECISION
        );
        """,
        """
        CREATE TABLE used_seals (
            request_id TEXT COLLATE "C" PRIMARY KEY,
            digest TEXT NOT NULL,
            used_at DOUBLE PRECISION NOT NULL
        );
        """,
        """
        ALTER TABLE sagas ADD COLUMN reply_key TEXT NOT NULL DEFAULT '';
        ALTER TABLE sagas ADD COLUMN sealed_result TEXT;
        """,
        "CREATE INDEX used_seals_by_time ON used_seals (used_at);",
        accountOwnership(real: "DOUBLE PRECISION", integer: "BIGINT"),
        answersByTopic(table: "", real: "DOUBLE PRECISION", collation: #" COLLATE "C""#, answerType: "(answer::json ->> 'type')",
                       now: "extract(epoch FROM now())"),
        deletions(table: "", real: "DOUBLE PRECISION", integer: "BIGINT", collation: #" COLLATE "C""#),
        profileUpdates(table: "", real: "DOUBLE PRECISION", integer: "BIGINT", boolean: "BOOLEAN", collation: #" COLLATE "C""#),
        SQLOutbox.migration(table: SQLOutbox.accountsTable, postgres: true),
        SQLOutbox.migration(table: SQLOutbox.effectsTable, postgres: true),
        SQLEffectOutbox.claims(real: "DOUBLE PRECISION"),
    ])

/// Migration 11: profile updates, by request id (``ProfileUpdateRecord``): the fields set (null: kept), the profile before,
/// the new and the replaced avatar.
private func profileUpdates(table: String, real: String, integer: String, boolean: String, collation: String) -> String {
    """
    CREATE TABLE profile_updates (
        request_id TEXT\(collation) PRIMARY KEY NOT NULL,
        uid TEXT\(collation) NOT NULL,
        name TEXT,
        profile_image TEXT,
        is_map_location_enabled \(boolean),
        previous_name TEXT NOT NULL,
        previous_email TEXT NOT NULL,
        previous_profile_image TEXT NOT NULL,
        previous_is_map_location_enabled \(boolean) NOT NULL,
        new_image_id TEXT,
        old_image_id TEXT,
        reply_key TEXT NOT NULL,
        sealed_profile TEXT,
        stage TEXT NOT NULL,
        failure_reason TEXT,
        failure_message TEXT,
        revision \(integer) NOT NULL,
        updated_at \(real) NOT NULL
    ) \(table);
    CREATE INDEX profile_updates_by_stage ON profile_updates (stage, updated_at);
    CREATE INDEX profile_updates_by_uid ON profile_updates (uid, revision);
    """
}

/// Migration 10: account deletions, by request id (``DeletionRecord``).
private func deletions(table: String, real: String, integer: String, collation: String) -> String {
    """
    CREATE TABLE deletions (
        request_id TEXT\(collation) PRIMARY KEY NOT NULL,
        uid TEXT\(collation) NOT NULL,
        email TEXT\(collation) NOT NULL,
        image_id TEXT,
        stage TEXT NOT NULL,
        revision \(integer) NOT NULL,
        updated_at \(real) NOT NULL
    ) \(table);
    CREATE INDEX deletions_by_stage ON deletions (stage, updated_at);
    """
}

/// Migration 9: each answer is kept by its request's topic and id (an id reused on another flow is another request)
/// with the time it was given, so that answers older than the flows' retention are forgotten. Earlier answers get
/// their request topic from their type, and the migration's time.
private func answersByTopic(table: String, real: String, collation: String, answerType: String, now: String) -> String {
    """
    CREATE TABLE answers_by_topic (
        worker TEXT\(collation) NOT NULL,
        topic TEXT\(collation) NOT NULL,
        request_id TEXT\(collation) NOT NULL,
        answer TEXT NOT NULL,
        answered_at \(real) NOT NULL,
        PRIMARY KEY (worker, topic, request_id)
    ) \(table);
    INSERT INTO answers_by_topic (worker, topic, request_id, answer, answered_at)
        SELECT worker, CASE \(answerType) WHEN 'CodeSent' THEN 'code.requests' WHEN 'CodeRefused' THEN 'code.requests'
                       WHEN 'AccountChangeCompleted' THEN 'account.requests' WHEN 'AccountChangeFailed' THEN 'account.requests'
                       ELSE 'auth.requests' END,
               request_id, answer, \(now)
        FROM answers;
    DROP TABLE answers;
    ALTER TABLE answers_by_topic RENAME TO answers;
    CREATE INDEX answers_by_time ON answers (answered_at);
    """
}

/// Migration 8: an account's proven mailbox (when, and by which request when not at its creation), its sessions'
/// cut-off and its saga revision (and the revision an email change's command carries). Accounts made before count as
/// unproven, except those whose mailbox a code proved since: made by code sign-in (no password), or whose password
/// was reset or whose email was changed by a code. Locks of earlier builds that held for good (year 3000 and later)
/// are lifted: no lock outlasts its policy's maximum now.
private func accountOwnership(real: String, integer: String) -> String {
    """
    ALTER TABLE accounts ADD COLUMN verified_at \(real);
    ALTER TABLE accounts ADD COLUMN verified_by TEXT;
    ALTER TABLE accounts ADD COLUMN not_before \(real);
    ALTER TABLE accounts ADD COLUMN revision \(integer) NOT NULL DEFAULT 0;
    ALTER TABLE account_changes ADD COLUMN revision \(integer) NOT NULL DEFAULT 0;
    UPDATE accounts SET verified_at = created_at WHERE password_hash = ''
        OR uid IN (SELECT uid FROM account_changes WHERE stage = 'completed' AND kind IN ('reset_password', 'change_email'));
    UPDATE sign_in_failures SET locked_until = NULL WHERE locked_until > 32503680000;
    UPDATE code_failures SET locked_until = NULL WHERE locked_until > 32503680000;
    """
}

extension Account: TableRecord {
    static let table = "accounts"
    static let columns = ["uid", "email", "password_hash", "status", "registration_id", "created_at", "verified_at", "not_before", "revision",
                          "verified_by"]

    init(row: SQLRow) throws(SQLError) {
        self.init(uid: try row[0], email: try row[1], passwordHash: try row[2], status: try row[3],
                  registrationId: try row[4], createdAt: try row[5], verifiedAt: try row[6], verifiedBy: try row[9], notBefore: try row[7],
                  revision: try row[8])
    }

    var values: [any SQLValueConvertible] {
        [uid, email, passwordHash, status, registrationId, createdAt, verifiedAt, notBefore, revision, verifiedBy]
    }
}

extension SagaRecord: TableRecord {
    static let table = "sagas"
    static let columns = [
        "registration_id", "uid", "email", "name", "is_map_location_enabled", "image_id", "image_url", "stage",
        "failure_reason", "failure_message", "version", "started_at", "updated_at", "reply_key", "sealed_result",
    ]

    init(row: SQLRow) throws(SQLError) {
        let reason: ReasonCode? = try row[8]
        let message: String? = try row[9]
        self.init(registrationId: try row[0], uid: try row[1], email: try row[2], name: try row[3],
                  isMapLocationEnabled: try row[4], imageId: try row[5], imageURL: try row[6], replyKey: try row[13],
                  sealedResult: try row[14], stage: try row[7],
                  failure: reason.map { Failure($0, message ?? "") }, version: try row[10],
                  startedAt: try row[11], updatedAt: try row[12])
    }

    var values: [any SQLValueConvertible] {
        [registrationId, uid, email, name, isMapLocationEnabled, imageId, imageURL, stage,
         failure?.reason, failure?.message, version, startedAt, updatedAt, replyKey, sealedResult]
    }

    /// Saves every column but the key if the stored version is the one before: binds `values` after
    /// the key, then the key and `version - 1`.
    static let compareAndSet = "UPDATE sagas SET "
        + columns.dropFirst().map { "\($0) = ?" }.joined(separator: ", ")
        + " WHERE registration_id = ? AND version = ?"
}
