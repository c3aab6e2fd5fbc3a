import Foundation

/// The code emails a chaos run's mail server accepted: one RFC 5322 file each in a directory (a
/// Maildir's `new`, or the embedded outbox), grouped by Message-ID (`code.<requestId>@<domain>`).
struct SentMail {
    /// The codes (from the plain-text body; never in the subject) of each request's emails, one entry per copy.
    private(set) var codes: [String: [String]] = [:]

    /// Reads every non-hidden file of `directory`; none when it does not exist.
    init(directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.filter { !$0.hasPrefix(".") } ?? []
        for name in names {
            guard let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8) else { continue }
            let headers = Self.headers(of: text)
            guard let id = headers["message-id"], id.hasPrefix("<code."), let at = id.firstIndex(of: "@") else { continue }
            let code = text.range(of: #"is: [0-9]{6}"#, options: .regularExpression).map { String(text[$0].suffix(6)) }
            codes[String(id[id.index(id.startIndex, offsetBy: 6)..<at]), default: []].append(code ?? "")
        }
    }

    /// Every email, copies included.
    var count: Int { codes.values.reduce(0) { $0 + $1.count } }

    /// Copies beyond the first of a request's email, all identical to it.
    var identicalCopies: Int { codes.values.filter { Set($0).count == 1 }.reduce(0) { $0 + $1.count - 1 } }

    /// The requests that were mailed two different codes.
    var requestsWithTwoCodes: [String] { codes.filter { Set($0.value).count > 1 }.map(\.key).sorted() }

    /// The header fields before the first empty line, names lowercased, folded lines joined.
    private static func headers(of text: String) -> [String: String] {
        var fields: [String: String] = [:]
        var last: String?
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if line.isEmpty { break }
            if line.first == " " || line.first == "\t", let name = last {
                fields[name, default: ""] += line.trimmingCharacters(in: .whitespaces)
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                last = name
            }
        }
        return fields
    }
}
