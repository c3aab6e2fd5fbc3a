/// A command line that cannot be run as written (exit code 2), or a request for help (exit code 0).
public enum UsageError: Error, Sendable, CustomStringConvertible {
    case helpRequested(String)
    case invalid(String, String)

    public var description: String {
        switch self {
        case .helpRequested(let help): help
        case .invalid(let problem, _): problem
        }
    }
}
