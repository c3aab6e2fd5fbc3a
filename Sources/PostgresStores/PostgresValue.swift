import Foundation
import Domain
import Registration

/// A Swift type stored in one PostgreSQL column, passed and read in text format.
protocol PostgresValueConvertible {
    /// The value as a text parameter; nil for NULL.
    var postgresText: String? { get }
    /// The value from a column's text (nil for NULL), or nil when it holds no value of this type.
    init?(postgresText: String?)
}

extension String: PostgresValueConvertible {
    var postgresText: String? { self }

    init?(postgresText: String?) {
        guard let postgresText else { return nil }
        self = postgresText
    }
}

/// `BIGINT` or `INTEGER`.
extension Int: PostgresValueConvertible {
    var postgresText: String? { String(self) }

    init?(postgresText: String?) {
        guard let value = postgresText.flatMap({ Int($0) }) else { return nil }
        self = value
    }
}

/// `DOUBLE PRECISION`; the text round-trips exactly (PostgreSQL 12+ prints the shortest exact form).
extension Double: PostgresValueConvertible {
    var postgresText: String? { "\(self)" }

    init?(postgresText: String?) {
        guard let value = postgresText.flatMap({ Double($0) }) else { return nil }
        self = value
    }
}

/// `BOOLEAN`, which the server prints as `t` or `f`.
extension Bool: PostgresValueConvertible {
    var postgresText: String? { self ? "true" : "false" }

    init?(postgresText: String?) {
        switch postgresText {
        case "t": self = true
        case "f": self = false
        default: return nil
        }
    }
}

/// Unix time in seconds as `DOUBLE PRECISION`, like the SQLite stores: exact to about 0.2 µs;
/// `to_timestamp(column)` shows it as a timestamp.
extension Date: PostgresValueConvertible {
    var postgresText: String? { timeIntervalSince1970.postgresText }

    init?(postgresText: String?) {
        guard let seconds = Double(postgresText: postgresText) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }
}

/// Unix times in seconds as `DOUBLE PRECISION[]`, e.g. `{1700000000.5,1700000060}`.
extension Array: PostgresValueConvertible where Element == Date {
    var postgresText: String? { "{" + map { "\($0.timeIntervalSince1970)" }.joined(separator: ",") + "}" }

    init?(postgresText: String?) {
        guard let text = postgresText, text.hasPrefix("{"), text.hasSuffix("}") else { return nil }
        let elements = text.dropFirst().dropLast().split(separator: ",").map { Double(String($0)) }
        guard !elements.contains(nil) else { return nil }
        self = elements.compactMap { $0.map(Date.init(timeIntervalSince1970:)) }
    }
}

/// `nil` is NULL.
extension Optional: PostgresValueConvertible where Wrapped: PostgresValueConvertible {
    var postgresText: String? { flatMap(\.postgresText) }

    init?(postgresText: String?) {
        if postgresText == nil {
            self = .none
        } else if let wrapped = Wrapped(postgresText: postgresText) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}

/// String enumerations are stored as their raw value.
extension PostgresValueConvertible where Self: RawRepresentable, RawValue == String {
    var postgresText: String? { rawValue }

    init?(postgresText: String?) {
        guard let rawValue = String(postgresText: postgresText) else { return nil }
        self.init(rawValue: rawValue)
    }
}

extension AccountStatus: PostgresValueConvertible {}
extension SagaStage: PostgresValueConvertible {}
extension ReasonCode: PostgresValueConvertible {}
