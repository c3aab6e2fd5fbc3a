/// A `multipart/form-data` body (RFC 7578): its parts by field name.
struct MultipartBody {
    struct Part {
        var name: String
        var filename: String?
        var bytes: [UInt8]
    }

    var parts: [Part]

    /// The one part named `name`, nil when absent; `malformed` when it repeats.
    func part(_ name: String) throws(RequestBody.Refusal) -> Part? {
        let found = parts.filter { $0.name == name }
        guard found.count <= 1 else { throw .malformed("\(name) is given more than once") }
        return found.first
    }

    /// The text of the part named `name`.
    func text(_ name: String) throws(RequestBody.Refusal) -> String? {
        guard let part = try part(name) else { return nil }
        guard let text = String(validating: part.bytes, as: UTF8.self) else { throw .malformed("\(name) is not UTF-8") }
        return text
    }

    /// Splits `body` on the `boundary` of its media type.
    static func parse(_ body: [UInt8], boundary: String) throws(RequestBody.Refusal) -> MultipartBody {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else { throw .malformed("the multipart boundary is missing or too long") }
        let delimiter = Array("--\(boundary)".utf8)
        var sections: [ArraySlice<UInt8>] = []
        var rest = body[...]
        guard let first = rest.firstRange(of: delimiter) else { throw .malformed("no multipart boundary in the body") }
        rest = rest[first.upperBound...]
        while true {
            if rest.starts(with: Array("--".utf8)) { break }
            guard rest.starts(with: crlf), let next = rest.firstRange(of: crlf + delimiter) else {
                throw .malformed("a multipart part is not terminated")
            }
            sections.append(rest[(rest.startIndex + 2)..<next.lowerBound])
            rest = rest[next.upperBound...]
        }
        var parts: [Part] = []
        for section in sections {
            guard let split = section.firstRange(of: crlf + crlf) else { throw .malformed("a multipart part has no header end") }
            guard let head = String(validating: section[..<split.lowerBound], as: UTF8.self) else { throw .malformed("a part's headers are not UTF-8") }
            var disposition: MediaType?
            for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                // `form-data; name="x"` read as a media type whose essence is a dummy: the parameters are what matter.
                disposition = MediaType("form-data/x" + line.dropFirst("content-disposition:".count).drop { $0 == " " }.dropFirst("form-data".count))
            }
            guard let name = disposition?.parameters["name"] else { throw .malformed("a part has no form-data name") }
            parts.append(Part(name: name, filename: disposition?.parameters["filename"], bytes: Array(section[split.upperBound...])))
        }
        return MultipartBody(parts: parts)
    }

    private static let crlf = Array("\r\n".utf8)
}
