/// A command's failure said in one line for people (`registrar audit: no data directory 'dtaa'`), with its exit
/// code: what `CommandLineTool` prints instead of a log line, e.g. a broker that cannot be reached or a partial answer.
public struct CommandFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var exitCode: ExitCode

    public init(_ message: String, exitCode: ExitCode = .failure) {
        self.message = message
        self.exitCode = exitCode
    }

    public var description: String { message }
}
