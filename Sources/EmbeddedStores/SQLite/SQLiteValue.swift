import Foundation
import Domain
import Registration

/// A value as SQLite stores it in a column (the stores keep no blobs).
enum SQLiteValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A Swift type stored in one SQLite column: bound as a statement parameter, read back from a row.
protocol SQLiteValueConvertible {
    var sqliteValue: SQLiteValue { get }
    /// The value stored as `sqliteValue`, or nil when it holds no value of this type.
    init?(sqliteValue: SQLiteValue)
}

extension String: SQLiteValueConvertible {
    var sqliteValue: SQLiteValue { .text(self) }

    init?(sqliteValue: SQLiteValue) {
        guard case .text(let text) = sqliteValue else { return nil }
        self = text
    }
}

extension Int: SQLiteValueConvertible {
    var sqliteValue: SQLiteValue { .integer(Int64(self)) }

    init?(sqliteValue: SQLiteValue) {
        guard case .integer(let integer) = sqliteValue, let value = Int(exactly: integer) else { return nil }
        self = value
    }
}

extension Double: SQLiteValueConvertible {
    var sqliteValue: SQLiteValue { .real(self) }

    init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let real): self = real
        case .integer(let integer): self = Double(integer)
        case .null, .text: return nil
        }
    }
}

/// Stored as 0 or 1.
extension Bool: SQLiteValueConvertible {
    var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }

    init?(sqliteValue: SQLiteValue) {
        guard let integer = Int(sqliteValue: sqliteValue), integer == 0 || integer == 1 else { return nil }
        self = integer == 1
    }
}

/// Stored as Unix time in seconds (REAL): about 0.2 µs resolution for current dates, readable with
/// SQLite's `datetime(column, 'unixepoch')`.
extension Date: SQLiteValueConvertible {
    var sqliteValue: SQLiteValue { .real(timeIntervalSince1970) }

    init?(sqliteValue: SQLiteValue) {
        guard let seconds = Double(sqliteValue: sqliteValue) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }
}

/// `nil` is stored as NULL.
extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    var sqliteValue: SQLiteValue { map(\.sqliteValue) ?? .null }

    init?(sqliteValue: SQLiteValue) {
        if sqliteValue == .null {
            self = .none
        } else if let wrapped = Wrapped(sqliteValue: sqliteValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}

/// String enumerations are stored as their raw value.
extension SQLiteValueConvertible where Self: RawRepresentable, RawValue == String {
    var sqliteValue: SQLiteValue { .text(rawValue) }

    init?(sqliteValue: SQLiteValue) {
        guard let rawValue = String(sqliteValue: sqliteValue) else { return nil }
        self.init(rawValue: rawValue)
    }
}

extension AccountStatus: SQLiteValueConvertible {}
extension SagaStage: SQLiteValueConvertible {}
extension ReasonCode: SQLiteValueConvertible {}
