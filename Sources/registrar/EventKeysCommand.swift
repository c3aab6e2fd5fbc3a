import Domain
import EventTransport
import Support

/// `registrar keys rotate-events|retire-events --role ROLE`: rotates one worker role's event signing key.
/// `rotate-events` makes a new key pair and keeps the old public key as the previous one, which
/// consumers accept beside the new one until `retire-events` removes it (a second rotation retires it too).
enum EventKeysCommand {
    private static let roles = WorkerRole.allCases.map(\.rawValue).joined(separator: ", ")

    static func spec(_ action: String) -> CommandSpec {
        CommandSpec(name: "registrar keys \(action)",
                    summary: action == "rotate-events" ? "make a new event signing key for a role, the old one still accepted"
                        : "stop accepting a role's previous event signing key",
                    options: KeysCommand.directoryOptions + [.value("role", "The worker role: \(roles)")])
    }

    static func run(_ action: String, _ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec(action)) { parsed in
            let directory = EventKeyDirectory(KeysCommand.directory(parsed))
            guard let role = WorkerRole(rawValue: try parsed.required("role")) else {
                throw UsageError.invalid("--role must be one of \(roles)", spec(action).helpText)
            }
            if action == "rotate-events" {
                let key = try directory.rotate(role)
                print("new \(role.rawValue) event key \(key.keyID); the previous one is accepted until `registrar keys retire-events --role \(role.rawValue)`")
            } else {
                print(try directory.retirePrevious(of: role) ? "retired the previous \(role.rawValue) event key" : "no previous \(role.rawValue) event key")
            }
            return .success
        }
    }
}
