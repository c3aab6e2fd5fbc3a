import Foundation

/// The language a mail is written in, chosen from what a request asks for (a `locale` on the topics: a BCP 47
/// language tag or a priority list of them, most preferred first, e.g. `zh-CN, en`) among the locales that have
/// templates. Lookup per RFC 4647 §3.4: each tag is tried as is and then shortened by its last subtag; Chinese
/// without a script gets the script its region writes (`zh`, `zh-CN`, `zh-SG` → `zh-Hans`; `zh-TW`, `zh-HK`,
/// `zh-MO` → `zh-Hant`). Nothing matching gives the default, `en`.
public enum MailLocale {
    /// The locale every letter has templates in, used when nothing else matches.
    public static let fallback = "en"

    /// The longest `locale` field the contract takes.
    public static let maximumLength = ContractLimits.localeCharacters

    /// Nil when `field` is a valid `locale` value: at most ``maximumLength`` characters, comma-separated tags of
    /// letters, digits and hyphens (RFC 5646's characters), each at most 35 long, at most 10 of them.
    public static func problem(in field: String) -> String? {
        guard field.utf8.count <= maximumLength else { return "locale is longer than \(maximumLength) characters" }
        let tags = field.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard tags.count <= 10 else { return "locale lists more than 10 language tags" }
        for tag in tags {
            let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
            guard !tag.isEmpty, tag.utf8.count <= 35,
                  subtags.allSatisfy({ !$0.isEmpty && $0.count <= 8 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }) else {
                return "locale \"\(tag.prefix(40))\" is not a language tag (letters, digits and hyphens, e.g. zh-CN)"
            }
        }
        return nil
    }

    /// The locale of `available` that `requested` (a `locale` field or nil) selects.
    public static func select(_ requested: String?, from available: Set<String>) -> String {
        let index = Dictionary(available.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        for tag in (requested ?? "").split(separator: ",").map({ canonical($0.trimmingCharacters(in: .whitespaces)) }) {
            var subtags = tag.split(separator: "-").map(String.init)
            while !subtags.isEmpty {
                if let match = index[subtags.joined(separator: "-")] { return match }
                subtags.removeLast()
                // A single-letter subtag (an extension's singleton) is never left at the end (§3.4).
                if subtags.last?.count == 1 { subtags.removeLast() }
            }
        }
        return fallback
    }

    /// The priority list of an HTTP `Accept-Language` header (RFC 9110 §12.5.4), most preferred first, without `*`
    /// and ranges of weight 0, as a `locale` field; nil when it names nothing usable.
    public static func priorityList(acceptLanguage header: String) -> String? {
        let ranges = header.split(separator: ",").enumerated().compactMap { position, item -> (tag: String, weight: Double, position: Int)? in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, tag != "*", problem(in: tag) == nil else { return nil }
            let weight = parts.dropFirst().first { $0.lowercased().hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0 && weight <= 1 ? (tag, weight, position) : nil
        }
        var list = ""
        for tag in ranges.sorted(by: { ($0.weight, -$0.position) > ($1.weight, -$1.position) }).prefix(10).map(\.tag)
        where list.utf8.count + 1 + tag.utf8.count <= maximumLength {
            list += (list.isEmpty ? "" : ",") + tag
        }
        return list.isEmpty ? nil : list
    }

    /// `tag` in lower case, with the script Chinese is written in where the tag names only a region.
    static func canonical(_ tag: String) -> String {
        let subtags = tag.lowercased().split(separator: "-").map(String.init)
        guard subtags.first == "zh", subtags.dropFirst().first?.count != 4 else { return subtags.joined(separator: "-") }
        let script = ["tw", "hk", "mo"].contains(subtags.dropFirst().first ?? "") ? "hant" : "hans"
        return (["zh", script] + subtags.dropFirst()).joined(separator: "-")
    }
}
