/// The conventional exit codes of every Registrar binary.
public enum ExitCode: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
}
