import Crypto
import Foundation
import Support
@testable import TestSupport
import Testing

/// Every `registrar` command that talks to the topics, pointed at an address where no broker listens, fails with
/// exit code 1 and one line saying so (`cannot reach Kafka at 127.0.0.1:1: connection refused`), soon after its
/// `--timeout` — it does not hang closing its Kafka clients; librdkafka's own lines come only with `--verbose`.
@Suite(.tags(.live, .storeFree)) struct UnreachableBrokerTests {
    /// Far above what a failing command takes (a few seconds); only a hang comes near it.
    static let hangBound = Duration.seconds(60)
    /// Each command is given `--timeout 1`: well under what one waits without it (10 s for reads, 30 s for the flows
    /// and the topics' Admin requests), well over a loaded machine's start of the command.
    static let soonAfterItsTimeout = Duration.seconds(8)

    @Test func everyClientCommandFailsInsteadOfHanging() async throws {
        let data = NSTemporaryDirectory() + "unreachable-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: data) }
        let key = SealingKeyPair.generate().publicKey.base64
        let reading = ["--bootstrap", "127.0.0.1:1", "--data-dir", data, "--timeout", "1"]
        let flow = reading + ["--public-key", key]
        let commands: [(arguments: [String], input: [String])] = [
            (["register", "--email", "nobroker@example.com", "--name", "No Broker"] + flow, ["Correct-Horse-Battery-9"]),
            (["code", "request", "--email", "nobroker@example.com", "--purpose", "login"] + flow, []),
            (["login", "--email", "nobroker@example.com"] + flow, ["Correct-Horse-Battery-9"]),
            (["token", "refresh"] + flow, ["some-refresh-token"]),
            (["password", "change", "--email", "nobroker@example.com"] + flow, ["Correct-Horse-Battery-9", "Another-Horse-Battery-8"]),
            (["password", "reset", "--email", "nobroker@example.com"] + flow, ["123456", "Another-Horse-Battery-8"]),
            (["email", "change", "--email", "nobroker@example.com", "--new-email", "moved@example.com"] + flow,
             ["Correct-Horse-Battery-9", "123456"]),
            (["status", "reg-nobroker"] + reading, []),
            (["dlq", "list"] + reading, []),
            (["topics", "check"] + reading, []),
        ]
        // All at once: each waits for a broker that never answers.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for command in commands {
                group.addTask {
                    let started = ContinuousClock.now
                    let (status, output) = try await Self.run(command.arguments, input: command.input)
                    let took = ContinuousClock.now - started
                    #expect(status == 1, "\(command.arguments.prefix(2)): \(status) \(output.suffix(300))")
                    #expect(took < Self.soonAfterItsTimeout, "\(command.arguments.prefix(2)) took \(took)")
                    let lines = output.split(separator: "\n")
                    #expect(lines.count == 1 && lines[0].hasSuffix(": cannot reach Kafka at 127.0.0.1:1: connection refused"),
                            "\(command.arguments.prefix(2)): \(output.suffix(600))")
                }
            }
            try await group.waitForAll()
        }
        let (status, verbose) = try await Self.run(["status", "reg-nobroker", "--verbose"] + reading, input: [])
        #expect(status == 1)
        #expect(verbose.contains("librdkafka: ") && verbose.contains("Connection refused"), "the library's lines with --verbose: \(verbose)")
        #expect(verbose.hasSuffix("registrar status: cannot reach Kafka at 127.0.0.1:1: connection refused\n"), "\(verbose.suffix(300))")
    }

    /// Runs `registrar` with `input` on standard input, killed after `hangBound`; its exit status and both outputs.
    private static func run(_ arguments: [String], input: [String]) async throws -> (Int32, String) {
        // The outcome roles' public keys, as the sealing key is given: only the broker is missing.
        let eventKeys = ["account", "code-dispatch"].map { "\($0)=\(SigningKeyPair.generate().publicKey.base64)" }.joined(separator: " ")
        let process = try ChildProcess(Binaries.path("registrar"), arguments, environment: ["REGISTRAR_EVENT_PUBLIC_KEYS": eventKeys],
                                       input: .pipe, errors: .standardOutput)
        process.write(Array(input.map { $0 + "\n" }.joined().utf8))
        process.closeInput()
        let killer = Task {
            try await Task.sleep(for: hangBound)
            process.send(SIGKILL)
        }
        defer { killer.cancel() }
        var output = ""
        while let line = await process.nextLine() { output += line + "\n" }
        return (await process.waitForExit(), output)
    }
}
