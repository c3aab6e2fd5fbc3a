/// A command line that cannot be run as written (exit code 2), or a request for help or the version (exit code 0).
public enum UsageError: Error, Sendable, CustomStringConvertible {
    case helpRequested(String)
    case versionRequested
    case invalid(String, String)

    public var description: String {
        switch self {
        case .helpRequested(let help): help
        case .versionRequested: RegistrarVersion.current
        case .invalid(let problem, _): problem
        }
    }
}
