import Domain
import Foundation

/// Every mail's subject, plain text and HTML, by locale: `<locale>/<letter>/subject.txt`, `body.txt` and `body.html`.
///
/// The built-in set (`Sources/Courier/Templates`, embedded in the binary) has each letter in English and Simplified
/// Chinese. An operator overrides any of its files, or adds a locale, by pointing at a directory of the same layout
/// (`--mail-templates`): a file there replaces the built-in one of the same path. A letter exists in a locale when
/// its three parts do (else it is mailed in English); ``check(_:)`` refuses, before anything is sent, a template
/// that does not parse, uses a name its letter does not define, renders an empty or multi-line subject, or a file
/// that is not part of the layout.
public struct MailTemplates: Sendable {
    /// Template text by path, the directory's files over the built-in ones.
    private let files: [String: String]
    /// Where the overrides came from, for messages.
    private let overrides: String?

    /// The parts of a letter, by file name.
    static let parts = ["subject.txt", "body.txt", "body.html"]

    /// The templates built into the binary.
    public static let builtIn = MailTemplates(files: EmbeddedFiles.files, overrides: nil)

    /// The built-in templates' files by path (`en/login_code/subject.txt`): what an operator starts an override from.
    public static var builtInFiles: [String: String] { EmbeddedFiles.files }

    private init(files: [String: String], overrides: String?) {
        self.files = files
        self.overrides = overrides
    }

    /// The built-in templates with the files under `directory` (if any) in their place.
    public init(overriding directory: String?) throws(TemplateProblems) {
        guard let directory else {
            self = Self.builtIn
            return
        }
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw TemplateProblems(["\(directory): no such directory"])
        }
        var files = EmbeddedFiles.files
        var problems: [String] = []
        for case let url as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) ?? .init()
        where !url.hasDirectoryPath {
            let path = String(url.standardizedFileURL.path.dropFirst(root.path.count + 1))
            let pieces = path.split(separator: "/")
            guard pieces.count == 3, Self.parts.contains(String(pieces[2])), MailLocale.problem(in: String(pieces[0])) == nil,
                  Self.letterNames.contains(String(pieces[1])) else {
                problems.append("\(path): not a template (expected <locale>/<letter>/\(Self.parts.joined(separator: "|")), "
                                + "letters: \(Self.letterNames.sorted().joined(separator: ", ")))")
                continue
            }
            guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8) else {
                problems.append("\(path): cannot be read as UTF-8 text")
                continue
            }
            files[path] = text
        }
        guard problems.isEmpty else { throw TemplateProblems(problems.map { "\(directory)/\($0)" }) }
        self.init(files: files, overrides: directory)
    }

    /// The letters the built-in English set defines.
    static let letterNames = Set(EmbeddedFiles.files.keys.compactMap { path -> String? in
        let pieces = path.split(separator: "/")
        return pieces.count == 3 && pieces[0] == "en" ? String(pieces[1]) : nil
    })

    /// The locales with at least one template.
    public var locales: Set<String> { Set(files.keys.compactMap { $0.split(separator: "/").first.map(String.init) }) }

    /// The locales `letter` has all its parts in.
    func locales(of letter: Letter) -> Set<String> {
        locales.filter { locale in Self.parts.allSatisfy { files["\(locale)/\(letter.name)/\($0)"] != nil } }
    }

    /// Throws every problem of `letters`' templates in every locale: a part missing beside the others (or any in
    /// English), a template that does not parse against the letter's names, a subject that renders empty or on
    /// several lines.
    public func check(_ letters: [Letter]) throws(TemplateProblems) {
        var problems: [String] = []
        for letter in letters {
            for locale in locales.sorted() {
                let paths = Self.parts.map { "\(locale)/\(letter.name)/\($0)" }
                let present = paths.filter { files[$0] != nil }
                if present.count < paths.count, locale == MailLocale.fallback || !present.isEmpty {
                    problems += paths.filter { files[$0] == nil }.map { "\(overrides ?? "built-in templates")/\($0): missing" }
                    continue
                }
                for path in present {
                    do throws(MailTemplate.Flaw) {
                        let template = try MailTemplate(parsing: files[path] ?? "", names: letter.names)
                        guard path.hasSuffix("/subject.txt") else { continue }
                        for sample in [letter.names.reduce(into: [:]) { $0[$1] = "x" }, [:]] {
                            let subject = template.render(sample) { $0 }
                            if subject.trimmingWhitespace().isEmpty || subject.trimmingWhitespace().contains(where: \.isNewline) {
                                problems.append("\(source(of: path)): the subject must render as one line of text")
                                break
                            }
                        }
                    } catch {
                        problems.append("\(source(of: path)): \(error)")
                    }
                }
            }
        }
        guard problems.isEmpty else { throw TemplateProblems(problems) }
    }

    /// `letter` in the locale `locale` (a `locale` field) selects, with `values` (placeholders as text, sections
    /// shown when not empty; escaped in the HTML part). A template that does not render (one ``check(_:)`` would
    /// have refused) is a permanent `StoreError`.
    public func render(_ letter: Letter, locale: String?, values: [String: String]) throws(StoreError) -> RenderedLetter {
        let chosen = MailLocale.select(locale, from: locales(of: letter))
        var rendered: [String] = []
        for part in Self.parts {
            let path = "\(chosen)/\(letter.name)/\(part)"
            guard let source = files[path], let template = try? MailTemplate(parsing: source, names: letter.names) else {
                throw StoreError(.permanent, "the mail template \(self.source(of: path)) is missing or does not parse")
            }
            rendered.append(template.render(values, escape: part.hasSuffix(".html") ? Self.escapeHTML : { $0 }))
        }
        let subject = rendered[0].split(whereSeparator: \.isNewline).joined(separator: " ").trimmingWhitespace()
        return RenderedLetter(locale: chosen, subject: subject, text: rendered[1], html: rendered[2])
    }

    /// The file a template path comes from, for messages.
    private func source(of path: String) -> String {
        guard let overrides, FileManager.default.fileExists(atPath: overrides + "/" + path) else { return "built-in " + path }
        return overrides + "/" + path
    }

    static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// A letter rendered in one locale.
public struct RenderedLetter: Sendable, Equatable {
    public var locale: String
    public var subject: String
    public var text: String
    public var html: String
}

/// What is wrong with a set of templates, one line each.
public struct TemplateProblems: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [String]

    public init(_ problems: [String]) { self.problems = problems }

    public var description: String { "mail templates: " + problems.joined(separator: "; ") }
}
