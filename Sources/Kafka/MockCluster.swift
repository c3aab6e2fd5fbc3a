internal import CRDKafka
import Support

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
        try KafkaError.check(rd_kafka_mock_topic_create(cluster, name, partitions, replicationFactor))
    }

    /// Makes a broker unreachable: it closes its connections and refuses new ones.
    public func setBrokerDown(_ id: Int32) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_broker_set_down(cluster, id))
    }

    public func setBrokerUp(_ id: Int32) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_broker_set_up(cluster, id))
    }

    /// Delays every response of a broker by `rtt`.
    public func setRoundTripTime(broker id: Int32, _ rtt: Duration) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_broker_set_rtt(cluster, id, Int32(clamping: rtt.milliseconds)))
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
        try KafkaError.check(rd_kafka_mock_partition_set_leader(cluster, topic, partition, id))
    }

    /// Makes `broker` the coordinator of a consumer group (`keyType` "group") or transactional ID ("transaction").
    public func setCoordinator(keyType: String = "group", key: String, broker id: Int32) throws(KafkaError) {
        try KafkaError.check(rd_kafka_mock_coordinator_set(cluster, keyType, key, id))
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

    deinit { rd_kafka_mock_cluster_destroy(pointer) }
}
