import Foundation

/// What SQLite and PostgreSQL spell differently, and nothing else: the stores' SQL is written once
/// with `?` placeholders, upserts as `ON CONFLICT … DO UPDATE` (which both accept), and their
/// schemas give each dialect its DDL (`SQLSchema`).
public enum SQLDialect: Sendable {
    /// One writer at a time: every transaction takes the write lock when it begins (`BEGIN
    /// IMMEDIATE`), so a read-modify-write needs no row lock.
    case sqlite
    /// Read committed: a read-modify-write locks what it reads (`FOR UPDATE`, advisory locks).
    case postgres

    /// `sql` with its `?` placeholders as this dialect numbers them (`$1`, `$2`, … in PostgreSQL).
    /// The stores' SQL has no `?` inside literals.
    func statement(_ sql: String) -> String {
        guard self == .postgres else { return sql }
        var numbered = ""
        var count = 0
        for character in sql {
            if character == "?" {
                count += 1
                numbered += "$\(count)"
            } else {
                numbered.append(character)
            }
        }
        return numbered
    }

    /// The statement that begins a transaction (taking SQLite's write lock at once).
    var begin: String {
        self == .postgres ? "BEGIN" : "BEGIN IMMEDIATE"
    }

    /// The clause that ends a `SELECT` whose rows the transaction goes on to change.
    var lockingClause: String {
        self == .postgres ? " FOR UPDATE" : ""
    }

    /// The statement that holds, until the transaction ends, a lock on a space (first value) and a
    /// key (second value), also while no row of that key exists yet; nil when transactions are
    /// serialised anyway.
    var keyLock: String? {
        self == .postgres ? "SELECT pg_advisory_xact_lock(?::integer, hashtext(?))" : nil
    }

    /// A list of dates in one column: `DOUBLE PRECISION[]` in PostgreSQL, comma-separated Unix
    /// seconds in SQLite (`TEXT`).
    func dateList(_ dates: [Date]) -> SQLValue {
        let seconds = dates.map { "\($0.timeIntervalSince1970)" }.joined(separator: ",")
        return .text(self == .postgres ? "{\(seconds)}" : seconds)
    }
}

extension Array where Element == Date {
    /// The dates of a `SQLDialect.dateList` column, in either dialect's form; nil when it holds none.
    init?(dateList value: SQLValue) {
        guard case .text(let text) = value else { return nil }
        let seconds = text.trimmingCharacters(in: ["{", "}"]).split(separator: ",").map { Double(String($0)) }
        guard !seconds.contains(nil) else { return nil }
        self = seconds.compactMap { $0.map(Date.init(timeIntervalSince1970:)) }
    }
}
