import Accounts
import Foundation
import Domain

/// A value as a driver passes it to and reads it from a column (the stores keep no blobs).
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A Swift type stored in one column: bound as a statement parameter, read back from a row.
protocol SQLValueConvertible {
    var sqlValue: SQLValue { get }
    /// The value stored as `sqlValue`, or nil when it holds no value of this type.
    init?(sqlValue: SQLValue)
}

extension String: SQLValueConvertible {
    var sqlValue: SQLValue { .text(self) }

    init?(sqlValue: SQLValue) {
        guard case .text(let text) = sqlValue else { return nil }
        self = text
    }
}

extension Int: SQLValueConvertible {
    var sqlValue: SQLValue { .integer(Int64(self)) }

    init?(sqlValue: SQLValue) {
        guard case .integer(let integer) = sqlValue, let value = Int(exactly: integer) else { return nil }
        self = value
    }
}

extension Double: SQLValueConvertible {
    var sqlValue: SQLValue { .real(self) }

    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let real): self = real
        case .integer(let integer): self = Double(integer)
        case .null, .text: return nil
        }
    }
}

/// Stored as 0 or 1 (SQLite `INTEGER`), or as a PostgreSQL `BOOLEAN`, which its driver reads as 0 or 1.
extension Bool: SQLValueConvertible {
    var sqlValue: SQLValue { .integer(self ? 1 : 0) }

    init?(sqlValue: SQLValue) {
        guard let integer = Int(sqlValue: sqlValue), integer == 0 || integer == 1 else { return nil }
        self = integer == 1
    }
}

/// Stored as Unix time in seconds (`REAL`, `DOUBLE PRECISION`): about 0.2 µs resolution for current
/// dates, readable with SQLite's `datetime(column, 'unixepoch')` or PostgreSQL's `to_timestamp(column)`.
extension Date: SQLValueConvertible {
    var sqlValue: SQLValue { .real(timeIntervalSince1970) }

    init?(sqlValue: SQLValue) {
        guard let seconds = Double(sqlValue: sqlValue) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }
}

/// `nil` is stored as NULL.
extension Optional: SQLValueConvertible where Wrapped: SQLValueConvertible {
    var sqlValue: SQLValue { map(\.sqlValue) ?? .null }

    init?(sqlValue: SQLValue) {
        if sqlValue == .null {
            self = .none
        } else if let wrapped = Wrapped(sqlValue: sqlValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}

/// String enumerations are stored as their raw value.
extension SQLValueConvertible where Self: RawRepresentable, RawValue == String {
    var sqlValue: SQLValue { .text(rawValue) }

    init?(sqlValue: SQLValue) {
        guard let rawValue = String(sqlValue: sqlValue) else { return nil }
        self.init(rawValue: rawValue)
    }
}

/// A value already in a driver's form, e.g. a dialect's list of dates.
extension SQLValue: SQLValueConvertible {
    var sqlValue: SQLValue { self }

    init?(sqlValue: SQLValue) {
        self = sqlValue
    }
}

extension AccountStatus: SQLValueConvertible {}
extension SagaStage: SQLValueConvertible {}
extension ReasonCode: SQLValueConvertible {}
