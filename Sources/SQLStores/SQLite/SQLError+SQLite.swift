internal import CSQLite
import Domain

extension SQLError {
    /// The error for SQLite result `code` (primary or extended), with SQLite's message.
    init(sqliteCode code: Int32, message: String) {
        let unique = code == SQLITE_CONSTRAINT | 8 << 8 || code == SQLITE_CONSTRAINT | 6 << 8 // _UNIQUE, _PRIMARYKEY
        self.init(StoreError.Kind(sqliteCode: code), message, code: "\(code)", isUniqueViolation: unique)
    }
}

extension StoreError.Kind {
    /// Whether SQLite result `code` (primary or extended) is the database's trouble rather than the
    /// statement's, and so may clear up if the operation is retried later.
    ///
    /// Transient: another connection holds a lock past the busy timeout (`BUSY`, `LOCKED`), the file
    /// system failed, could not open the file or refused to write it (`IOERR`, `CANTOPEN`, `READONLY`
    /// with every extended code: a read-only file or mount, a moved or deleted file, a WAL index being
    /// rebuilt), the disk is full (`FULL`), the WAL index is being rebuilt (`PROTOCOL`), memory ran out
    /// or the call was interrupted (`NOMEM`, `INTERRUPT`). The worker waits these out.
    ///
    /// Permanent, everything else: the write broke a constraint or a trigger refused it with
    /// `RAISE(ABORT|FAIL|ROLLBACK, …)` (`CONSTRAINT`, `CONSTRAINT_TRIGGER`), the database is corrupt or
    /// not a database (`CORRUPT`, `NOTADB`), the SQL or schema is wrong (`ERROR`, `MISMATCH`, `RANGE`,
    /// `TOOBIG`), or a statement was aborted (`ABORT`). None of these change by trying the same write again.
    init(sqliteCode code: Int32) {
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_FULL, SQLITE_PROTOCOL,
             SQLITE_NOMEM, SQLITE_INTERRUPT:
            self = .transient
        default:
            self = .permanent
        }
    }
}
