import Foundation

/// The fields of an `application/x-www-form-urlencoded` body; the first of a repeated name counts.
struct FormBody {
    private var fields: [String: String] = [:]

    init(_ body: [UInt8]) {
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            let name = decode(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
    }

    subscript(_ name: String) -> String? { fields[name] }
}
