/// A JSON value reduced to what the codec checks before and after decoding an event: the field names
/// of objects, strings, integers and null. Other values (booleans, fractions, arrays) are `other`.
indirect enum JSONShape: Decodable, Equatable {
    case object([String: JSONShape])
    case string(String)
    case integer(Int)
    case null
    case other

    private struct FieldName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: FieldName.self) {
            var fields: [String: JSONShape] = [:]
            for key in object.allKeys { fields[key.stringValue] = try object.decode(JSONShape.self, forKey: key) }
            self = .object(fields)
            return
        }
        let value = try decoder.singleValueContainer()
        if value.decodeNil() {
            self = .null
        } else if let string = try? value.decode(String.self) {
            self = .string(string)
        } else if let integer = try? value.decode(Int.self) {
            self = .integer(integer)
        } else {
            self = .other
        }
    }

    /// The path of the first field (in name order, depth first) that this value has and `allowed`
    /// does not, with whether that field is null here.
    func firstField(notIn allowed: JSONShape, path: String = "") -> (path: String, isNull: Bool)? {
        guard case .object(let fields) = self, case .object(let known) = allowed else { return nil }
        for name in fields.keys.sorted() {
            let value = fields[name]!
            let field = path.isEmpty ? name : path + "." + name
            guard let expected = known[name] else { return (field, value == .null) }
            if let found = value.firstField(notIn: expected, path: field) { return found }
        }
        return nil
    }

    /// The value in words, for error messages.
    var summary: String {
        switch self {
        case .object: "an object"
        case .string(let text): "the string \"\(text.prefix(40))\""
        case .integer(let number): "\(number)"
        case .null: "null"
        case .other: "a value that is not an integer"
        }
    }
}
