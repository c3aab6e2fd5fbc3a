import Foundation
import Kafka
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
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    let stdin = Pipe()
    process.standardOutput = output
    process.standardInput = stdin
    try process.run()
    if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
    try stdin.fileHandleForWriting.close()
    let timer = Task {
        try await Task.sleep(for: timeout)
        process.terminate()
    }
    defer { timer.cancel() }
    let data = await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            continuation.resume(returning: data)
        }
    }
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The path of `name` on `$PATH`, if installed.
func installedProgram(_ name: String) -> String? {
    (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        .map { "\($0)/\(name)" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}
