import Foundation

/// A command line that was parsed against a `CommandSpec`.
///
/// Accepts `--name value`, `--name=value` and bare `--flag`; values missing from the command line
/// fall back to the option's environment variable, then to its default.
public struct ParsedArguments: Sendable {
    public private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    private var fromEnvironment: Set<String> = []
    private let spec: CommandSpec

    /// Parses `arguments` (without the command name). Throws `UsageError.helpRequested` for `--help`, and
    /// `UsageError.versionRequested` for `--version`.
    public init(
        _ arguments: [String], spec: CommandSpec,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(UsageError) {
        self.spec = spec
        var index = arguments.startIndex
        var onlyPositionals = false
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            guard !onlyPositionals, argument.hasPrefix("--"), argument.count > 2 else {
                if argument == "--" && !onlyPositionals { onlyPositionals = true } else { positionals.append(argument) }
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if name == "help" { throw .helpRequested(spec.helpText) }
            if name == "version", inlineValue == nil { throw .versionRequested }
            guard let option = spec.options.first(where: { $0.name == name }) else {
                throw .invalid("unknown option --\(name)", spec.helpText)
            }
            if let refusal = option.refusal { throw .invalid(refusal, spec.helpText) }
            if option.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.endIndex {
                    value = arguments[index]
                    index += 1
                } else {
                    throw .invalid("option --\(name) needs a value", spec.helpText)
                }
                if !option.repeatable && values[name] != nil {
                    throw .invalid("option --\(name) given twice", spec.helpText)
                }
                values[name, default: []].append(value)
            } else {
                guard inlineValue == nil else { throw .invalid("flag --\(name) takes no value", spec.helpText) }
                flags.insert(name)
            }
        }
        for option in spec.options where option.takesValue && values[option.name] == nil {
            if let env = option.environment, let value = environment[env], !value.isEmpty {
                values[option.name] = [value]
                fromEnvironment.insert(option.name)
            } else if let value = option.defaultValue {
                values[option.name] = [value]
            }
        }
    }

    /// The option's value (command line, environment, then default), or nil.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for a repeatable option.
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether the option's value came from its environment variable.
    public func isFromEnvironment(_ name: String) -> Bool { fromEnvironment.contains(name) }

    /// Whether the flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The option's value, or a usage error naming it.
    public func required(_ name: String) throws(UsageError) -> String {
        guard let value = value(name) else {
            let env = spec.options.first { $0.name == name }?.environment.map { " (or $\($0))" } ?? ""
            throw .invalid("missing --\(name)\(env)", spec.helpText)
        }
        return value
    }

    /// The option's value converted by `convert`, or a usage error saying what was expected.
    public func value<T>(_ name: String, as expected: String, _ convert: (String) -> T?) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        guard let converted = convert(text) else {
            throw .invalid("--\(name) expects \(expected), got '\(text)'", spec.helpText)
        }
        return converted
    }

    /// The option's integer value.
    public func integer(_ name: String) throws(UsageError) -> Int? {
        try value(name, as: "a whole number") { Int($0) }
    }

    /// The option's value as a whole number above zero (a count, a size, seconds).
    public func positiveInteger<T: FixedWidthInteger>(_ name: String, as type: T.Type = Int.self) throws(UsageError) -> T? {
        try value(name, as: "a positive whole number") { T($0).flatMap { $0 > 0 ? $0 : nil } }
    }

    /// The `index`-th positional argument, or a usage error naming `what`.
    public func positional(_ index: Int, _ what: String) throws(UsageError) -> String {
        guard index < positionals.count else { throw .invalid("missing \(what)", spec.helpText) }
        return positionals[index]
    }
}
