import Crypto
import Console
import Domain
import EventTransport
import RegistrarClient
import Support

/// `registrar status <registration-id>`: where a registration stands, and the path it took; with the reply key, the
/// account events (`account.events`) of the account it made. `registrar status <uid>`: an account's events.
enum StatusCommand {
    static let spec = CommandSpec(
        name: "registrar status", summary: "show where a registration stands, or an account's events (by uid)",
        usage: "<registration-id | request-id | uid> [--reply-key-file F] [--json] [--timeout S] [options]",
        options: [
            .value("reply-key-file", "The reply secret `registrar register --reply-key-file` kept: shows the uid, the profile image and the account's events"),
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
            // The account's events are keyed by its uid, which only the reply key opens.
            var account: (path: SagaPath, snapshot: TopicSnapshot)?
            if let uid = result?.uid {
                account = try await connection.explainingBrokerTrouble {
                    try await SagaPath.read(uid, on: Announcements.all.map(\.topic), kafka: connection.kafka(clientID: "registrar-status"),
                                            timeout: timeout)
                }
            }
            if parsed.flag("json") {
                var answer: [String: Any] = ["registrationId": registrationId, "found": !path.steps.isEmpty, "standing": path.standing,
                                             "steps": path.json]
                answer.merge(JSONOutput.completeness(snapshot)) { $1 }
                if let result { answer["uid"] = result.uid; answer["profileImage"] = result.profile.profileImage }
                if let account { answer["accountEvents"] = account.path.json }
                JSONOutput.print(answer)
            } else if path.steps.isEmpty {
                print("no registration \(registrationId) on the topics")
            } else if path.steps.allSatisfy({ step in Announcements.all.contains { $0.topic == step.topic } }) {
                print("account \(registrationId): its events")
                path.lines.dropLast().forEach { print($0) }
            } else {
                print("registration \(registrationId): \(path.standing)")
                path.lines.forEach { print($0) }
                if let result { print("uid \(result.uid), profile image \(result.profile.profileImage)") }
                if let account {
                    print("account events:")
                    account.path.steps.isEmpty ? print("  none yet") : account.path.lines.dropLast().forEach { print($0) }
                }
            }
            try PartialAnswer.check(snapshot, within: timeout)
            if let account { try PartialAnswer.check(account.snapshot, within: timeout) }
            return path.steps.isEmpty ? .failure : .success
        }
    }
}
