/// Describes one command's options so that parsing, environment fallbacks and `--help` agree.
public struct CommandSpec: Sendable {
    /// One `--name value` option or `--name` flag.
    public struct Option: Sendable {
        public var name: String
        public var help: String
        public var takesValue: Bool
        public var environment: String?
        public var defaultValue: String?
        public var repeatable: Bool
        /// Set for a name that is refused on the command line: the error saying how to pass the value instead.
        public var refusal: String?

        /// An option that takes a value, e.g. `--bootstrap host:port`.
        public static func value(
            _ name: String, _ help: String, environment: String? = nil,
            default defaultValue: String? = nil, repeatable: Bool = false
        ) -> Option {
            Option(name: name, help: help, takesValue: true, environment: environment,
                   defaultValue: defaultValue, repeatable: repeatable, refusal: nil)
        }

        /// A name refused on the command line, with the error saying what to do instead.
        public static func refused(_ name: String, _ refusal: String) -> Option {
            Option(name: name, help: "", takesValue: true, environment: nil, defaultValue: nil, repeatable: false, refusal: refusal)
        }

        /// A boolean flag, e.g. `--verbose`.
        public static func flag(_ name: String, _ help: String) -> Option {
            Option(name: name, help: help, takesValue: false, environment: nil, defaultValue: nil, repeatable: false, refusal: nil)
        }
    }

    public var name: String
    public var summary: String
    public var usage: String
    public var options: [Option]

    public init(name: String, summary: String, usage: String = "", options: [Option]) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.options = options
    }

    /// The text `--help` prints.
    public var helpText: String {
        var lines = ["\(name) — \(summary)", "", "Usage: \(name) \(usage.isEmpty ? "[options]" : usage)"]
        if !options.isEmpty {
            lines.append("")
            lines.append("Options:")
            for option in options where option.refusal == nil {
                var left = "  --\(option.name)"
                if option.takesValue { left += " <value>" }
                var right = option.help
                if let env = option.environment { right += " [env: \(env)]" }
                if let value = option.defaultValue { right += " (default: \(value))" }
                if option.repeatable { right += " (repeatable)" }
                lines.append(left.padding(toLength: max(left.count, 30), withPad: " ", startingAt: 0) + " " + right)
            }
            lines.append("  --help                         Show this help.")
            lines.append("  --version                      Show the version.")
        }
        return lines.joined(separator: "\n")
    }
}
