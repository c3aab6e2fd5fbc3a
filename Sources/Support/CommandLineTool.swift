import Foundation

/// Runs a command body with the project's conventions: `--help` and `--version` print and exit 0,
/// usage errors print the problem and where to find the usage, and exit 2; other errors are logged and exit 1.
public enum CommandLineTool {
    /// One subcommand of a multi-command tool.
    public struct Subcommand: Sendable {
        public var name: String
        public var summary: String
        public var run: @Sendable ([String]) async -> ExitCode

        public init(_ name: String, _ summary: String, run: @escaping @Sendable ([String]) async -> ExitCode) {
            self.name = name
            self.summary = summary
            self.run = run
        }

        /// A subcommand with subcommands of its own, dispatched as the tool `tool` (e.g. `registrar code`), which
        /// `toolSummary` describes in its index.
        public init(_ name: String, _ summary: String, tool: String, toolSummary: String, subcommands: [Subcommand]) {
            self.init(name, summary) { await CommandLineTool.dispatch(tool: tool, summary: toolSummary, $0, to: subcommands) }
        }
    }

    /// Parses `arguments` with `spec` and runs `body`, mapping errors to exit codes.
    public static func run(
        _ arguments: [String], spec: CommandSpec,
        _ body: (ParsedArguments) async throws -> ExitCode
    ) async -> ExitCode {
        do {
            return try await body(ParsedArguments(arguments, spec: spec))
        } catch let error as UsageError {
            return report(error, command: spec.name)
        } catch let failure as CommandFailure {
            try? FileHandle.standardError.write(contentsOf: Data("\(spec.name): \(failure.message)\n".utf8))
            return failure.exitCode
        } catch {
            Logger(component: spec.name).error("\(error)")
            return .failure
        }
    }

    /// Dispatches `arguments.first` to one of `subcommands`; prints an index for `--help`.
    public static func dispatch(tool: String, summary: String, _ arguments: [String], to subcommands: [Subcommand]) async -> ExitCode {
        let index = ([tool + " — " + summary, "", "Usage: \(tool) <command> [options]", "", "Commands:"]
            + subcommands.map { "  " + $0.name.padding(toLength: 22, withPad: " ", startingAt: 0) + $0.summary }
            + ["", "Run '\(tool) <command> --help' for a command's options."]).joined(separator: "\n")
        guard let name = arguments.first else { return report(.invalid("missing command", index), command: tool) }
        if name == "--help" || name == "help" || name == "-h" { return report(.helpRequested(index), command: tool) }
        if name == "--version" { return report(.versionRequested, command: tool) }
        guard let command = subcommands.first(where: { $0.name == name }) else {
            return report(.invalid("unknown command '\(name)'", index), command: tool)
        }
        return await command.run(Array(arguments.dropFirst()))
    }

    /// Runs `main` and exits the process with its code. Call from an executable's top level.
    public static func exit(with main: @escaping @Sendable () async -> ExitCode) async -> Never {
        let code = await main()
        await ChildProcess.awaitingSignalStop()
        FileHandle.standardOutput.synchronizeFile()
        Foundation.exit(code.rawValue)
    }

    /// Dispatches the process's arguments to `subcommands` of the tool `tool` and exits with the code. Call from an
    /// executable's top level.
    public static func exit(tool: String, summary: String, subcommands: [Subcommand]) async -> Never {
        await exit { await dispatch(tool: tool, summary: summary, Array(CommandLine.arguments.dropFirst()), to: subcommands) }
    }

    private static func report(_ error: UsageError, command: String) -> ExitCode {
        switch error {
        case .helpRequested(let help):
            print(help)
            return .success
        case .versionRequested:
            print("\(command.prefix { $0 != " " }) \(RegistrarVersion.current)")
            return .success
        case .invalid(let problem, _):
            FileHandle.standardError.write(Data("\(command): \(problem)\nRun '\(command) --help' for its usage.\n".utf8))
            return .usage
        }
    }
}
