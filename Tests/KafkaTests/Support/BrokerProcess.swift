import Foundation
import Kafka
import KafkaCommands
@testable import TestSupport

/// A `kafka-tool broker` process with a control socket, for tests across processes.
struct BrokerProcess: Sendable {
    let process: ToolProcess
    let bootstrapServers: String
    let control: BrokerControl
    private let directory: URL

    /// Starts `brokers` mock brokers with `topics` (name: partitions) and waits for the bootstrap line.
    static func start(brokers: Int = 1, topics: [String: Int] = [:]) async throws -> BrokerProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kafka-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("control.sock").path
        let process = try ToolProcess(
            ["broker", "--brokers", String(brokers), "--control", socket]
                + topics.flatMap { ["--topic", "\($0.key):\($0.value)"] })
        let line = try await process.next("text", within: .seconds(20))
        return BrokerProcess(
            process: process, bootstrapServers: line.value ?? "", control: BrokerControl(socketPath: socket),
            directory: directory)
    }

    /// Stops the broker (SIGTERM) and removes its files.
    func stop() async throws {
        process.signal(SIGTERM)
        _ = try await process.exitStatus()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `kafka-tool <command> --bootstrap <this broker> <arguments…>`.
    func tool(_ command: String, _ arguments: [String]) throws -> ToolProcess {
        try ToolProcess([command, "--bootstrap", bootstrapServers] + arguments)
    }
}
