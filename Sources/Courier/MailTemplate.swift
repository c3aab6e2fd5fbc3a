/// One template of a mail part: text with `{{name}}` placeholders and `{{#name}}…{{/name}}` (shown when the value is
/// not empty) and `{{^name}}…{{/name}}` (shown when it is) sections — a small subset of Mustache, parsed once and
/// checked against the names its letter defines, so that rendering cannot fail.
struct MailTemplate: Sendable, Equatable {
    indirect enum Node: Sendable, Equatable {
        case text(String)
        case value(String)
        case section(String, shownWhenSet: Bool, [Node])
    }

    let nodes: [Node]

    /// Why a template cannot be used, with its line.
    struct Flaw: Error, Equatable, CustomStringConvertible {
        var line: Int
        var problem: String
        var description: String { "line \(line): \(problem)" }
    }

    /// Parses `source`, accepting only the placeholder and section names in `names`.
    init(parsing source: String, names: Set<String>) throws(Flaw) {
        var stack: [(name: String, shownWhenSet: Bool, nodes: [Node], line: Int)] = [("", true, [], 1)]
        var rest = Substring(source)
        var line = 1
        while let open = rest.range(of: "{{") {
            let text = rest[..<open.lowerBound]
            if !text.isEmpty { stack[stack.count - 1].nodes.append(.text(String(text))) }
            line += text.filter { $0 == "\n" }.count
            guard let close = rest[open.upperBound...].range(of: "}}") else { throw Flaw(line: line, problem: "\"{{\" is never closed") }
            let tag = rest[open.upperBound..<close.lowerBound].trimmingWhitespace()
            rest = rest[close.upperBound...]
            let sigil = tag.first
            let name = ["#", "^", "/"].contains(sigil) ? tag.dropFirst().trimmingWhitespace() : tag
            guard names.contains(name) else {
                let known = names.sorted().joined(separator: ", ")
                throw Flaw(line: line, problem: name.isEmpty ? "an empty tag" : "unknown name \"\(name)\" (this letter has: \(known))")
            }
            switch sigil {
            case "#", "^":
                stack.append((name, sigil == "#", [], line))
            case "/":
                guard stack.count > 1, let open = stack.last, open.name == name else {
                    throw Flaw(line: line, problem: "\"{{/\(name)}}\" closes no open \"{{#\(name)}}\" or \"{{^\(name)}}\"")
                }
                stack.removeLast()
                stack[stack.count - 1].nodes.append(.section(name, shownWhenSet: open.shownWhenSet, open.nodes))
            default:
                stack[stack.count - 1].nodes.append(.value(name))
            }
        }
        if !rest.isEmpty { stack[stack.count - 1].nodes.append(.text(String(rest))) }
        if stack.count > 1, let open = stack.last {
            throw Flaw(line: open.line, problem: "section \"\(open.name)\" is never closed")
        }
        nodes = stack[0].nodes
    }

    /// The template with `values` in place, each passed through `escape` (every name was checked at parsing; a
    /// name without a value is empty).
    func render(_ values: [String: String], escape: (String) -> String) -> String {
        func render(_ nodes: [Node]) -> String {
            nodes.map { node in
                switch node {
                case .text(let text): text
                case .value(let name): escape(values[name] ?? "")
                case .section(let name, let shownWhenSet, let body):
                    (values[name]?.isEmpty == false) == shownWhenSet ? render(body) : ""
                }
            }.joined()
        }
        return render(nodes)
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
