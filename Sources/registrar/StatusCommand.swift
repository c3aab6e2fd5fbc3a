import Crypto
import Console
import EventTransport
import RegistrarClient
import Support

/// `registrar status <registration-id>`: where a registration stands, and the path it took.
enum StatusCommand {
    static let spec = CommandSpec(
        name: "registrar status", summary: "show where a registration stands",
        usage: "<registration-id> [--reply-key-file F] [--json] [--timeout S] [options]",
        options: [
            .value("reply-key-file", "The reply secret `registrar register --reply-key-file` kept: shows the uid and profile image"),
            PartialAnswer.timeoutOption("the topics"),
            JSONOutput.option,
        ] + ConnectionOptions.commandSpecs)

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let registrationId = try parsed.positional(0, "registration id")
            let connection = try ConnectionOptions(parsed, quietUnlessVerbose: true)
            let timeout = Duration.seconds(try parsed.integer("timeout") ?? 10)
            let (path, snapshot) = try await connection.explainingBrokerTrouble {
                try await SagaPath.read(registrationId, kafka: connection.kafka(clientID: "registrar-status"), timeout: timeout)
            }
            let result = try path.completed.flatMap { completed in
                try parsed.value("reply-key-file").map { try ReplySecret(SealingKeyPair.loadReplyKeys(from: $0)).open(completed) }
            }
            if parsed.flag("json") {
                var answer: [String: Any] = ["registrationId": registrationId, "found": !path.steps.isEmpty, "standing": path.standing,
                                             "steps": path.json]
                answer.merge(JSONOutput.completeness(snapshot)) { $1 }
                if let result { answer["uid"] = result.uid; answer["profileImage"] = result.profile.profileImage }
                JSONOutput.print(answer)
            } else if path.steps.isEmpty {
                print("no registration \(registrationId) on the topics")
            } else {
                print("registration \(registrationId): \(path.standing)")
                path.lines.forEach { print($0) }
                if let result { print("uid \(result.uid), profile image \(result.profile.profileImage)") }
            }
            try PartialAnswer.check(snapshot, within: timeout)
            return path.steps.isEmpty ? .failure : .success
        }
    }
}
