import Foundation
import Support

/// A throw-away Kafka-protocol server that implements the Admin API (CreateTopics, DescribeConfigs), unlike
/// librdkafka's mock cluster: noida-db (PyPI `noida-db`) with only its Kafka service, on a free port of
/// 127.0.0.1, its data in a temporary directory; stopped when released or when the process exits.
///
/// The server comes from `$NOIDA_SERVER`, else the one `scripts/setup` links (`.build/test-servers/noida/server`).
public final class NoidaServer: @unchecked Sendable {
    public let port: Int
    private let server = ServerProcess()
    private let dataDirectory: String

    /// The server's bootstrap address.
    public var bootstrapServers: String { "127.0.0.1:\(port)" }

    public init() throws {
        let executable = try installedTestServer("noida/server", variable: "NOIDA_SERVER", what: "noida-db server (PyPI noida-db)")
        port = try freePort()
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("noida-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        server.run(try ChildProcess(executable, ["start", "--only", "kafka", "--kafka-port", "\(port)", "--data-dir", dataDirectory],
                                    output: .discarded, errors: .file(dataDirectory + "/server.log")))
        stopAtExit(self) { [weak self] in self?.stop() }
        try waitUntilListening(on: port)
    }

    deinit {
        forgetAtExit(self)
        stop()
    }

    /// Stops the server, waits until it has exited and removes its data.
    public func stop() {
        guard server.stop() else { return }
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }
}
