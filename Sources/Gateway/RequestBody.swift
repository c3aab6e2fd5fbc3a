import Foundation
import HTTPServer

/// A request body's fields, from `application/x-www-form-urlencoded` or a flat JSON object.
struct RequestBody {
    /// The fields in the order they came (a name may repeat).
    var fields: [(name: String, value: String)]

    /// Why a body was refused.
    enum Refusal: Error, Equatable {
        /// The content type is not one the endpoint takes (415).
        case unsupportedMediaType(accepted: [String])
        /// The body is not well-formed for its content type (400).
        case malformed(String)
    }

    static let form = "application/x-www-form-urlencoded"
    static let json = "application/json"

    /// The value of `name`, nil when absent; `Refusal.malformed` when it is given more than once.
    func value(_ name: String) throws(Refusal) -> String? {
        let values = fields.filter { $0.name == name }
        guard values.count <= 1 else { throw .malformed("\(name) is given more than once") }
        return values.first?.value
    }

    /// The body of `request`, which must be of one of the media types `accepted` (form, JSON), in UTF-8.
    static func parse(_ request: HTTPRequest, accepting accepted: [String]) throws(Refusal) -> RequestBody {
        guard let type = MediaType(request.headers["Content-Type"]), accepted.contains(type.essence),
              type.charset == nil || type.charset == "utf-8" else {
            throw .unsupportedMediaType(accepted: accepted)
        }
        guard let text = String(validating: request.body, as: UTF8.self) else { throw .malformed("the body is not UTF-8") }
        return type.essence == json ? try parseJSON(text) : try parseForm(text)
    }

    /// `name=value&…` with `+` for spaces and percent-escapes (WHATWG URL-encoded form).
    static func parseForm(_ text: String) throws(Refusal) -> RequestBody {
        var fields: [(name: String, value: String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else {
                throw .malformed("a form field is not percent-encoded correctly")
            }
            fields.append((name, value))
        }
        return RequestBody(fields: fields)
    }

    /// A JSON object whose values are strings, numbers or booleans.
    static func parseJSON(_ text: String) throws(Refusal) -> RequestBody {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw .malformed("the body is not a JSON object")
        }
        var fields: [(name: String, value: String)] = []
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            switch value {
            case let string as String: fields.append((name, string))
            case let number as NSNumber: fields.append((name, number.stringValue))
            default: throw .malformed("\(name) must be a string or a number")
            }
        }
        return RequestBody(fields: fields)
    }

    /// One form-encoded name or value, decoded.
    static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

/// A `Content-Type` value: its essence (`type/subtype`, lowercased) and charset, if any.
struct MediaType: Equatable {
    var essence: String
    var charset: String?
    /// The other parameters, names lowercased.
    var parameters: [String: String]

    init?(_ value: String?) {
        guard let value else { return nil }
        let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, first.split(separator: "/").count == 2, !first.contains(" ") else { return nil }
        essence = first.lowercased()
        parameters = [:]
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return nil }
            parameters[pair[0].lowercased()] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        charset = parameters["charset"]?.lowercased()
    }
}
