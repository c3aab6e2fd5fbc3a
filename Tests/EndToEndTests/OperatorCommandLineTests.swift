import Domain
import Foundation
import Kafka
import Support
@testable import TestSupport
import Testing

/// The CLI for scripts and people: `--json` answers, `audit` refusing a store that does not exist, partial answers
/// said (exit 1), a usage error in two lines, `--version` on every binary, reply-key files checked for their own mode.
@Suite(.tags(.live), .serialized) struct OperatorCommandLineTests {
    @Test func scriptsGetJSONFromStatusAuditDeadLettersLoginAndRefresh() async throws {
        try await LiveSystem.shared { system in
            // A reply-key file in an ordinary 0755 directory (a working directory): only the file's own mode counts.
            let directory = FileManager.default.temporaryDirectory.path + "/reply-keys-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let keyFile = directory + "/reply.key"
            let registered = try await system.registrar(["register", "--email", "json@example.com", "--name", "Json", "--registration-id",
                                                         "json-1", "--reply-key-file", keyFile], input: ["long enough password"],
                                                         mailedCode: .register, to: "json@example.com")
            #expect(registered.status == 0, "\(registered.output)")
            #expect(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int == 0o600)

            let status = try Self.object(try await system.registrar(["status", "json-1", "--json", "--reply-key-file", keyFile]))
            #expect(status["standing"] as? String == "completed" && status["complete"] as? Bool == true)
            let steps = (status["steps"] as? [[String: Any]] ?? []).compactMap { $0["summary"] as? String }
            #expect(steps.first?.hasPrefix("RegistrationRequested") == true && steps.last == "RegistrationCompleted", "\(steps)")
            #expect((status["uid"] as? String)?.count == 36)

            let audit = try Self.object(try await system.registrar(["audit", "--grace", "0", "--json"]))
            #expect(audit["count"] as? Int == 0 && (audit["findings"] as? [Any])?.isEmpty == true)

            let letters = try Self.object(try await system.registrar(["dlq", "list", "--json"]))
            #expect(letters["complete"] as? Bool == true && letters["count"] as? Int == (letters["letters"] as? [Any])?.count)

            let login = try Self.object(try await system.registrar(["login", "--email", "json@example.com", "--json"],
                                                                   input: ["long enough password"]))
            #expect(login["outcome"] as? String == "signed_in" && login["uid"] as? String == status["uid"] as? String)
            let refreshToken = try #require(login["refreshToken"] as? String)
            let refreshed = try Self.object(try await system.registrar(["token", "refresh", "--json"], input: [refreshToken]))
            #expect(refreshed["outcome"] as? String == "signed_in" && refreshed["refreshToken"] as? String != refreshToken)
            let reused = try await system.registrar(["token", "refresh", "--json"], input: [refreshToken])
            #expect(reused.status == 1)
            #expect(try Self.object(reused)["reason"] as? String == "invalid_credentials")

            // A reply-key file others can read is refused, with the chmod that fixes it.
            chmod(keyFile, 0o644)
            let refused = try await system.registrar(["status", "json-1", "--reply-key-file", keyFile])
            #expect(refused.status == 1)
            #expect(try String(contentsOfFile: system.logs + "/cli.log", encoding: .utf8).contains("chmod 600 \(keyFile)"))
        }
    }

    @Test func auditRefusesADataDirectoryOrStoreThatDoesNotExist() async throws {
        let missing = FileManager.default.temporaryDirectory.path + "/no-such-data-\(UUID().uuidString.prefix(8))"
        let audit = try await Self.run(["audit", "--data-dir", missing])
        #expect(audit.status == 2)
        #expect(audit.output == ["registrar audit: no data directory '\(missing)' (the embedded stores are there; see --data-dir)"])
        #expect(!FileManager.default.fileExists(atPath: missing), "nothing created")

        let empty = FileManager.default.temporaryDirectory.path + "/empty-data-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let json = try await Self.run(["audit", "--data-dir", empty, "--json"])
        #expect(json.status == 2)
        #expect(json.output.first?.contains("no accounts store at \(empty)/accounts.sqlite") == true, "\(json.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty, "nothing created")
        let elsewhere = try await Self.run(["audit", "--data-dir", empty, "--accounts", "sqlite://\(empty)/typo.sqlite"])
        #expect(elsewhere.status == 2 && elsewhere.output.first?.contains("no accounts store at \(empty)/typo.sqlite") == true)
    }

    @Test func aUsageErrorSaysItsProblemAndWhereTheHelpIs() async throws {
        let unknown = try await Self.run(["login", "--bogus"])
        #expect(unknown.status == 2)
        #expect(unknown.output == ["registrar login: unknown option --bogus", "Run 'registrar login --help' for its usage."])
        let missing = try await Self.run(["status"])
        #expect(missing.status == 2)
        #expect(missing.output == ["registrar status: missing registration id", "Run 'registrar status --help' for its usage."])
        let command = try await Self.run(["no-such-command"])
        #expect(command.output == ["registrar: unknown command 'no-such-command'", "Run 'registrar --help' for its usage."])
    }

    @Test func everyBinaryAnswersVersion() async throws {
        for binary in ["registrar", "registrar-dev", "kafka-tool", "account-worker", "image-worker", "profile-worker", "code-dispatch-worker", "relay-baseline"] {
            let run = try await Self.run(["--version"], binary: binary)
            #expect(run.status == 0 && run.output == ["\(binary) \(RegistrarVersion.current)"], "\(binary): \(run.output)")
        }
    }

    /// A broker whose fetches all fail: `dlq list` and `status` print what they read, say that it is partial, exit 1.
    @Test func commandsReadingTopicsUnderATimeLimitSayWhenTheirAnswerIsPartial() async throws {
        try await LiveSystem.with(workers: []) { system in
            let letter = OutgoingMessage(topic: Topic.deadLetters(of: Topic.codeRequests), key: "partial-1", value: Array("{}".utf8),
                                         headers: [KafkaHeader(key: "dlq.reason", value: Array("not_json".utf8))])
            try await system.client.publish(letter)
            let complete = try await system.registrar(["dlq", "list", "--topic", letter.topic])
            #expect(complete.status == 0 && complete.output.contains("1 dead letter"), "\(complete.output)")
            // Every fetch answered REQUEST_TIMED_OUT for a while.
            let control = try await Self.run(["control", "--control", system.installation.controlSocket, "request-errors", "1",
                                              Array(repeating: "7", count: 400).joined(separator: ",")], binary: "kafka-tool")
            #expect(control.status == 0, "\(control.output)")
            let partial = try await Self.run(["dlq", "list", "--topic", letter.topic, "--timeout", "2", "--data-dir", system.directory])
            #expect(partial.status == 1)
            #expect(partial.output.contains("0 dead letters"), "\(partial.output)")
            #expect(partial.output.last == "registrar dlq: partial answer: 1 of 1 partitions were not read to their end within 2 s "
                    + "(\(letter.topic)/0)", "\(partial.output)")
            let json = try await Self.run(["dlq", "list", "--topic", letter.topic, "--timeout", "2", "--json", "--data-dir", system.directory])
            #expect(json.status == 1)
            let answer = try #require(try JSONSerialization.jsonObject(with: Data((json.output.first ?? "").utf8)) as? [String: Any])
            #expect(answer["complete"] as? Bool == false && answer["unfinishedPartitions"] as? [String] == ["\(letter.topic)/0"])
            let status = try await Self.run(["status", "partial-1", "--timeout", "2", "--data-dir", system.directory])
            #expect(status.status == 1)
            #expect(status.output.last?.hasPrefix("registrar status: partial answer: ") == true, "\(status.output)")
        }
    }

    /// A letter whose `dlq.topic` header names another input topic than the one its dead-letter topic belongs to is
    /// replayed to its own: `registration.requests.dlq` → `registration.requests`, never `account.requests`.
    @Test func dlqReplaySendsALetterToTheTopicItsDeadLetterTopicBelongsTo() async throws {
        try await LiveSystem.with(workers: []) { system in
            let key = "misdirected-\(UUID().uuidString.prefix(8))"
            try await system.client.publish(OutgoingMessage(
                topic: Topic.deadLetters(of: Topic.registrationRequests), key: key, value: Array("{}".utf8),
                headers: [KafkaHeader(key: "dlq.reason", value: Array("not_json".utf8)),
                          KafkaHeader(key: "dlq.topic", value: Array(Topic.accountRequests.utf8))]))
            let letter = try #require(try await system.allTopicMessages().first { $0.keyString == key })
            let shown = try Self.object(try await system.registrar(["dlq", "show", letter.topic, "\(letter.partition):\(letter.offset)", "--json"]))
            #expect(shown["key"] as? String == key && shown["value"] as? String == "{}" && shown["replaysTo"] as? String == Topic.registrationRequests)
            #expect((shown["headers"] as? [String: String])?["dlq.topic"] == Topic.accountRequests)
            let replay = try await system.registrar(["dlq", "replay", letter.topic, "\(letter.partition):\(letter.offset)"])
            #expect(replay.status == 0)
            #expect(replay.output == "replayed \(letter.topic) \(letter.partition):\(letter.offset) to \(Topic.registrationRequests)")
            let copies = try await system.allTopicMessages().filter { $0.keyString == key && $0.topic != letter.topic }.map(\.topic)
            #expect(copies == [Topic.registrationRequests], "\(copies)")
        }
    }

    /// The JSON object a command printed on its first line.
    static func object(_ run: (status: Int32, output: String)) throws -> [String: Any] {
        let line = run.output.split(separator: "\n").first.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.output)")
    }

    /// Runs `binary` with `arguments` to its end: its exit status and its output lines (standard output, then error).
    static func run(_ arguments: [String], binary: String = "registrar") async throws -> (status: Int32, output: [String]) {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let process = try ChildProcess(Binaries.path(binary), arguments, errors: .file(errors))
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        let status = await process.waitForExit()
        lines += ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return (status, lines)
    }
}
