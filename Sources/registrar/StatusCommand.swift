import Crypto
import RegistrarClient
import Support
import WorkerRuntime

/// `registrar status <registration-id>`: where a registration stands, and the path it took.
enum StatusCommand {
    static let spec = CommandSpec(
        name: "registrar status", summary: "show where a registration stands", usage: "<registration-id> [--reply-key-file F] [options]",
        options: [.value("reply-key-file", "The reply secret `registrar register --reply-key-file` kept: shows the uid and profile image")]
            + ConnectionOptions.specs)

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
            if let completed = path.completed, let file = parsed.value("reply-key-file") {
                let result = try ReplySecret(SealingKeyPair.load(from: file)).open(completed)
                print("uid \(result.uid), profile image \(result.profile.profileImage)")
            }
            return .success
        }
    }
}
