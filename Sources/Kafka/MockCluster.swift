internal import CRDKafka
import Foundation
import Glibc
import Support
import Synchronization

/// A Kafka cluster simulated by librdkafka's mock broker, hosted in this process.
///
/// Its brokers (IDs 1…N) listen on real TCP ports on 127.0.0.1, so any Kafka client — other
/// processes, kcat — can use it while this object lives. For tests and benchmarks only.
public final class MockCluster: Sendable {
    private let handle: MockClusterHandle
    private var cluster: OpaquePointer { handle.pointer }

    /// Starts `brokers` mock brokers.
    public init(brokers: Int) throws(KafkaError) {
        handle = try MockClusterHandle(brokers: brokers)
    }

    /// `host:port,…` of all brokers.
    public var bootstrapServers: String { String(cString: rd_kafka_mock_cluster_bootstraps(cluster)) }

    /// Creates a topic. Otherwise a topic is created when a producer first asks for it, with the
    /// mock's default of 4 partitions (librdkafka 2.0.2 offers no way to change that default).
    public func createTopic(_ name: String, partitions: Int32, replicationFactor: Int32 = 1) throws(KafkaError) {
        try createTopics([(name, partitions)], replicationFactor: replicationFactor)
    }

    /// Creates `topics`, all at once.
    public func createTopics(_ topics: [(name: String, partitions: Int32)], replicationFactor: Int32 = 1) throws(KafkaError) {
        let requests = topics.map { topic in
            { @Sendable [handle] in rd_kafka_mock_topic_create(handle.pointer, topic.name, topic.partitions, replicationFactor) }
        }
        for error in handle.served(requests) { try KafkaError.check(error) }
    }

    /// Makes a broker unreachable: it closes its connections and refuses new ones.
    public func setBrokerDown(_ id: Int32) throws(KafkaError) {
        try KafkaError.check(handle.served { [handle] in rd_kafka_mock_broker_set_down(handle.pointer, id) })
    }

    public func setBrokerUp(_ id: Int32) throws(KafkaError) {
        try KafkaError.check(handle.served { [handle] in rd_kafka_mock_broker_set_up(handle.pointer, id) })
    }

    /// Delays every response of a broker by `rtt`.
    public func setRoundTripTime(broker id: Int32, _ rtt: Duration) throws(KafkaError) {
        let milliseconds = Int32(clamping: rtt.milliseconds)
        try KafkaError.check(handle.served { [handle] in rd_kafka_mock_broker_set_rtt(handle.pointer, id, milliseconds) })
    }

    /// Makes the next requests with `apiKey` (e.g. 0 = Produce, 1 = Fetch, 8 = OffsetCommit) fail,
    /// one per error code, in order, on whichever broker receives them.
    public func pushRequestErrors(apiKey: Int16, errors: [Int32]) {
        let codes = errors.map { rd_kafka_resp_err_t(rawValue: $0) }
        rd_kafka_mock_push_request_errors_array(cluster, apiKey, codes.count, codes)
    }

    /// Forgets errors pushed for `apiKey` that have not been used yet.
    public func clearRequestErrors(apiKey: Int16) {
        rd_kafka_mock_clear_request_errors(cluster, apiKey)
    }

    /// Makes every request on `topic` fail with `error` (0 clears it).
    public func setTopicError(_ topic: String, error: Int32) {
        rd_kafka_mock_topic_set_error(cluster, topic, rd_kafka_resp_err_t(rawValue: error))
    }

    /// Moves the leadership of a partition to another broker.
    public func setPartitionLeader(topic: String, partition: Int32, broker id: Int32) throws(KafkaError) {
        try KafkaError.check(handle.served { [handle] in rd_kafka_mock_partition_set_leader(handle.pointer, topic, partition, id) })
    }

    /// Makes `broker` the coordinator of a consumer group (`keyType` "group") or transactional ID ("transaction").
    public func setCoordinator(keyType: String = "group", key: String, broker id: Int32) throws(KafkaError) {
        try KafkaError.check(handle.served { [handle] in rd_kafka_mock_coordinator_set(handle.pointer, keyType, key, id) })
    }
}

/// Owns an `rd_kafka_mock_cluster_t` and the client instance whose thread runs it.
///
/// `@unchecked Sendable`: the pointer never changes, the `rd_kafka_mock_*` functions are thread-safe
/// (they hand work to the mock cluster's thread), and it is destroyed only in `deinit`.
private final class MockClusterHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Outlives `pointer`: stored properties are released after `deinit` runs.
    private let host: ClientHandle

    init(brokers: Int) throws(KafkaError) {
        host = try ClientHandle(
            type: RD_KAFKA_PRODUCER, properties: [("log_level", "3")],
            callbacks: ClientCallbacks(configuration: KafkaConfiguration(bootstrapServers: "", clientID: "mock")))
        guard let pointer = rd_kafka_mock_cluster_new(host.pointer, Int32(clamping: brokers)) else {
            throw .state("cannot start a mock cluster of \(brokers) brokers")
        }
        self.pointer = pointer
    }

    /// Stops the mock thread, which may also wait for a lost wake-up (`served`).
    deinit {
        nonisolated(unsafe) let cluster = pointer
        _ = served {
            rd_kafka_mock_cluster_destroy(cluster)
            return RD_KAFKA_RESP_ERR_NO_ERROR
        }
    }

    /// Runs `requests` (calls of the mock's API that hand an operation to its thread and wait for the answer), each on a
    /// thread of its own, and returns their answers. librdkafka 2.0.2's mock thread loses some of the wake-ups of its
    /// operation queue and then serves an operation only when its poll times out, a second later (a test making 25
    /// topics took 5 s, most of it blocking a thread of Swift's two-thread cooperative pool); a connection to one of its
    /// brokers wakes that poll, so one is opened and closed every 5 ms until every request is answered.
    func served(_ requests: [@Sendable () -> rd_kafka_resp_err_t]) -> [rd_kafka_resp_err_t] {
        let answers = Mutex([rd_kafka_resp_err_t?](repeating: nil, count: requests.count))
        let answered = DispatchSemaphore(value: 0)
        for (index, request) in requests.enumerated() {
            Thread.detachNewThread {
                let answer = request()
                answers.withLock { $0[index] = answer }
                answered.signal()
            }
        }
        let port = Self.firstPort(of: String(cString: rd_kafka_mock_cluster_bootstraps(pointer)))
        for _ in requests {
            while answered.wait(timeout: .now() + .milliseconds(5)) == .timedOut { port.map(Self.connectAndClose) }
        }
        return answers.withLock { $0.map { $0! } }
    }

    func served(_ request: @escaping @Sendable () -> rd_kafka_resp_err_t) -> rd_kafka_resp_err_t { served([request])[0] }

    /// The port of the first `127.0.0.1:port` of `bootstrap`.
    private static func firstPort(of bootstrap: String) -> UInt16? {
        bootstrap.split(separator: ",").first?.split(separator: ":").last.flatMap { UInt16($0) }
    }

    private static func connectAndClose(port: UInt16) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
