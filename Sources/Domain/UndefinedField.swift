import Foundation

/// A field a message has and its event does not define, found by comparing the message's JSON
/// objects with those the decoded event writes when encoded again (which has every field it read).
struct UndefinedField: Equatable {
    /// Dotted from the message's root, e.g. `profile.nickname`.
    var path: String
    /// Whether the message gave the field as null (which no field of the contract allows).
    var isNull: Bool

    /// The first such field of `message` (in name order, depth first), if any.
    static func first(in message: [String: Any], notIn written: [String: Any], path: String = "") -> UndefinedField? {
        for name in message.keys.sorted() {
            let field = path.isEmpty ? name : path + "." + name
            guard let expected = written[name] else { return UndefinedField(path: field, isNull: message[name] is NSNull) }
            if let object = message[name] as? [String: Any], let known = expected as? [String: Any],
               let found = first(in: object, notIn: known, path: field) {
                return found
            }
        }
        return nil
    }
}
