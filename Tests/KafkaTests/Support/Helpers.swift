import Foundation
import Kafka
import Support
@testable import TestSupport
import Testing

/// Runs `body` with a fresh broker process, stopping it afterwards even when `body` throws.
func withBroker<T>(
    brokers: Int = 1, topics: [String: Int], _ body: (BrokerProcess) async throws -> T
) async throws -> T {
    let broker = try await BrokerProcess.start(brokers: brokers, topics: topics)
    do {
        let result = try await body(broker)
        try await broker.stop()
        return result
    } catch {
        try? await broker.stop()
        throw error
    }
}

/// Produces one text message with `kafka-tool produce` and waits for its acknowledgement.
@discardableResult
func produce(_ broker: BrokerProcess, topic: String, value: String, extra: [String] = []) async throws -> ToolEvent {
    let producer = try broker.tool("produce", ["--topic", topic, "--value", value] + extra)
    let delivered = try await producer.next("delivered")
    #expect(try await producer.exitStatus() == 0)
    return delivered
}

/// Waits until `condition` holds, checking every 50 ms, for at most `timeout`.
func waitUntil(
    _ what: String, within timeout: Duration = .seconds(30), _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { throw ToolProcess.Timeout(description: "timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// Runs an external program to completion and returns its exit status and standard output.
func run(_ executable: String, _ arguments: [String], input: String? = nil, timeout: Duration = .seconds(20)) async throws
    -> (status: Int32, output: String)
{
    let process = try ChildProcess(executable, arguments, input: .pipe)
    if let input { process.write(Array(input.utf8)) }
    process.closeInput()
    let timer = Task {
        try await Task.sleep(for: timeout)
        process.send(SIGTERM)
    }
    defer { timer.cancel() }
    var lines: [String] = []
    while let line = await process.nextLine() { lines.append(line) }
    return (await process.waitForExit(), lines.joined(separator: "\n"))
}

/// The path of `name` on `$PATH`, if installed.
func installedProgram(_ name: String) -> String? {
    (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .map { "\($0)/\(name)" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}
