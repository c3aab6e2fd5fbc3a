internal import CRDKafka
import Dispatch

/// The Kafka Admin API: creates topics and describes them and their configuration.
///
/// Each request waits for its result on a queue of its own, off Swift's cooperative thread pool.
/// A request the cluster cannot answer at all (no broker, no controller) throws; per-topic failures
/// are part of the result.
public final class KafkaAdmin: Sendable {
    let client: ClientHandle

    /// Creates the client; invalid properties throw with librdkafka's explanation.
    public init(configuration: KafkaConfiguration) throws(KafkaError) {
        client = try ClientHandle(
            type: RD_KAFKA_PRODUCER, properties: configuration.librdkafkaProperties(for: .admin),
            callbacks: ClientCallbacks(configuration: configuration))
    }

    /// Asks the cluster to create `topics`, waiting at most `timeout` for it to finish.
    public func createTopics(_ topics: [NewTopic], timeout: Duration) async throws(KafkaAdminError) -> [TopicCreation] {
        try await blocking { [client] () throws(KafkaAdminError) in
            var pointers: [OpaquePointer?] = []
            defer { pointers.forEach { rd_kafka_NewTopic_destroy($0) } }
            for topic in topics { pointers.append(try topic.native()) }
            let result = try AdminRequest(client, .createTopics, timeout: timeout) { rk, options, queue in
                rd_kafka_CreateTopics(rk, &pointers, pointers.count, options, queue)
            }
            var count = 0
            guard let created = rd_kafka_event_CreateTopics_result(result.event),
                  let list = rd_kafka_CreateTopics_result_topics(created, &count) else { return [] }
            return (0..<count).compactMap { list[$0] }.map { topic in
                TopicCreation(topic: String(cString: rd_kafka_topic_result_name(topic)),
                              error: KafkaError(rd_kafka_topic_result_error(topic),
                                                message: rd_kafka_topic_result_error_string(topic).map { String(cString: $0) }))
            }
        }
    }

    /// Every topic the cluster has, with its partition count and replication, from its metadata.
    public func describeTopics(timeout: Duration) async throws(KafkaAdminError) -> [TopicDescription] {
        try await blocking { [client] () throws(KafkaAdminError) in
            var metadata: UnsafePointer<rd_kafka_metadata>?
            if let error = KafkaError(rd_kafka_metadata(client.pointer, 1, nil, &metadata, timeout.timeoutMilliseconds)) {
                throw .kafka(error)
            }
            defer { rd_kafka_metadata_destroy(metadata) }
            guard let metadata, let topics = metadata.pointee.topics else { return [] }
            return UnsafeBufferPointer(start: topics, count: Int(metadata.pointee.topic_cnt))
                .filter { $0.err == RD_KAFKA_RESP_ERR_NO_ERROR }
                .map(TopicDescription.init)
        }
    }

    /// The configuration (`name` → value, defaults included) of each of `topics`, or the error the
    /// cluster gave for it.
    public func describeConfigs(
        topics: [String], timeout: Duration
    ) async throws(KafkaAdminError) -> [String: Result<[String: String], KafkaError>] {
        try await blocking { [client] () throws(KafkaAdminError) in
            var resources: [OpaquePointer?] = topics.map { rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, $0) }
            defer { rd_kafka_ConfigResource_destroy_array(&resources, resources.count) }
            let result = try AdminRequest(client, .describeConfigs, timeout: timeout) { rk, options, queue in
                rd_kafka_DescribeConfigs(rk, &resources, resources.count, options, queue)
            }
            var count = 0
            guard let described = rd_kafka_event_DescribeConfigs_result(result.event),
                  let list = rd_kafka_DescribeConfigs_result_resources(described, &count) else { return [:] }
            var answers: [String: Result<[String: String], KafkaError>] = [:]
            for resource in (0..<count).compactMap({ list[$0] }) {
                let name = String(cString: rd_kafka_ConfigResource_name(resource))
                if let error = KafkaError(rd_kafka_ConfigResource_error(resource),
                                          message: rd_kafka_ConfigResource_error_string(resource).map { String(cString: $0) }) {
                    answers[name] = .failure(error)
                    continue
                }
                var entryCount = 0
                let entries = rd_kafka_ConfigResource_configs(resource, &entryCount)
                var configuration: [String: String] = [:]
                for entry in (0..<entryCount).compactMap({ entries?[$0] }) {
                    configuration[String(cString: rd_kafka_ConfigEntry_name(entry))] =
                        rd_kafka_ConfigEntry_value(entry).map { String(cString: $0) }
                }
                answers[name] = .success(configuration)
            }
            return answers
        }
    }

    /// Runs `work`, which blocks, on a Dispatch queue and returns its result.
    func blocking<T: Sendable>(
        _ work: @escaping @Sendable () throws(KafkaAdminError) -> T
    ) async throws(KafkaAdminError) -> T {
        try await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Result(catching: work)) }
        }.get()
    }
}

/// A topic for `KafkaAdmin.createTopics`.
public struct NewTopic: Sendable, Hashable {
    public var name: String
    public var partitions: Int32
    public var replicationFactor: Int32
    /// Topic-level configuration, e.g. `retention.ms`.
    public var configuration: [String: String]

    public init(name: String, partitions: Int32, replicationFactor: Int32, configuration: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.configuration = configuration
    }

    /// A new `rd_kafka_NewTopic_t`, which the caller destroys.
    fileprivate func native() throws(KafkaAdminError) -> OpaquePointer {
        var errorText = [CChar](repeating: 0, count: 512)
        guard let topic = rd_kafka_NewTopic_new(name, partitions, replicationFactor, &errorText, errorText.count) else {
            throw .kafka(KafkaError(code: KafkaError.Code.invalidArgument,
                                    message: String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        for (key, value) in configuration.sorted(by: { $0.key < $1.key }) {
            if let error = KafkaError(rd_kafka_NewTopic_set_config(topic, key, value)) {
                rd_kafka_NewTopic_destroy(topic)
                throw .kafka(error)
            }
        }
        return topic
    }
}

/// What the cluster answered for one topic of a `createTopics` request.
public struct TopicCreation: Sendable {
    public var topic: String
    /// Nil when the topic was created; `TOPIC_ALREADY_EXISTS` (see `alreadyExisted`) or another error otherwise.
    public var error: KafkaError?

    /// Whether the topic was there before the request.
    public var alreadyExisted: Bool { error?.code == KafkaError.Code.topicAlreadyExists }
}

/// A topic as the cluster's metadata describes it.
public struct TopicDescription: Sendable, Hashable {
    public var name: String
    public var partitions: Int
    /// Replicas of its first partition.
    public var replicationFactor: Int

    fileprivate init(_ topic: rd_kafka_metadata_topic) {
        name = String(cString: topic.topic)
        partitions = Int(topic.partition_cnt)
        replicationFactor = topic.partition_cnt > 0 ? Int(topic.partitions[0].replica_cnt) : 0
    }
}

extension KafkaAdmin {
    /// Whether the cluster is librdkafka's mock cluster (the local development broker), read from the cluster id
    /// it reports (`mockCluster…`); nil when no broker answered within `timeout`. Blocks the caller.
    public func isMockCluster(timeout: Duration) -> Bool? {
        guard let id = rd_kafka_clusterid(client.pointer, timeout.timeoutMilliseconds) else { return nil }
        defer { rd_kafka_mem_free(client.pointer, id) }
        return String(cString: id).hasPrefix("mockCluster")
    }
}
