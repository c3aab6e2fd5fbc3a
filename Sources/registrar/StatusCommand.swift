import Support
import WorkerRuntime

/// `registrar status <registration-id>`: where a registration stands, and the path it took.
enum StatusCommand {
    static let spec = CommandSpec(name: "registrar status", summary: "show where a registration stands",
                                  usage: "<registration-id> [options]", options: ConnectionOptions.specs)

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let registrationId = try parsed.positional(0, "registration id")
            let connection = try ConnectionOptions(parsed)
            let path = try await SagaPath.read(registrationId, kafka: connection.kafka(clientID: "registrar-status"))
            guard !path.steps.isEmpty else {
                print("no registration \(registrationId) on the topics")
                return .failure
            }
            print("registration \(registrationId): \(path.standing)")
            path.lines.forEach { print($0) }
            return .success
        }
    }
}
