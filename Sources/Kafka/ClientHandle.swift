internal import CRDKafka
import Support
import Synchronization

/// Owns one `rd_kafka_t` and destroys it when the last reference goes (unless kept until exit).
///
/// `@unchecked Sendable`: librdkafka handles are thread-safe, `pointer` never changes, and it is
/// destroyed only in `deinit`, when no other code can reach it.
final class ClientHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Reached by librdkafka's callbacks until `rd_kafka_destroy` returns, so kept alive here.
    private let callbacks: ClientCallbacks
    private let isKept = Atomic(false)

    init(
        type: rd_kafka_type_t, properties: [(String, String)], callbacks: ClientCallbacks
    ) throws(KafkaError) {
        let configuration = try NativeConfiguration(properties)
        configuration.setCallbacks(callbacks)
        self.pointer = try configuration.makeClient(type)
        self.callbacks = callbacks
    }

    deinit {
        if !isKept.load(ordering: .acquiring) { rd_kafka_destroy(pointer) }
    }

    /// Never destroys the handle, and keeps its callbacks alive, until the process exits (see `FirstAssignment`).
    func keepUntilExit() {
        guard !isKept.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = Unmanaged.passRetained(callbacks)
    }

    /// The error that made the client unusable, if one happened.
    static func fatalError(of client: OpaquePointer) -> KafkaError? {
        var text = [CChar](repeating: 0, count: 512)
        let err = rd_kafka_fatal_error(client, &text, text.count)
        guard err != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        let message = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return KafkaError(code: Int32(err.rawValue), message: message, isRetriable: false, isFatal: true)
    }

    /// Replaces the generic `_FATAL` code by the underlying fatal error.
    func resolvingFatal(_ error: KafkaError) -> KafkaError {
        guard error.code == KafkaError.Code.fatal, let fatal = Self.fatalError(of: pointer) else { return error }
        return fatal
    }

    /// Asks the cluster how many partitions `topic` has. Blocks for at most `timeout`.
    func partitionCount(topic: String, timeout: Duration) throws(KafkaError) -> Int {
        guard let topicHandle = rd_kafka_topic_new(pointer, topic, nil) else {
            throw KafkaError(rd_kafka_last_error()) ?? .state("cannot create topic handle for \(topic)")
        }
        defer { rd_kafka_topic_destroy(topicHandle) }
        var metadata: UnsafePointer<rd_kafka_metadata>?
        try KafkaError.check(rd_kafka_metadata(pointer, 0, topicHandle, &metadata, timeout.timeoutMilliseconds))
        defer { rd_kafka_metadata_destroy(metadata) }
        guard let metadata, metadata.pointee.topic_cnt > 0, let topics = metadata.pointee.topics else {
            throw KafkaError(code: KafkaError.Code.unknownTopic, message: "no metadata for topic \(topic)")
        }
        try KafkaError.check(topics[0].err)
        return Int(topics[0].partition_cnt)
    }

    /// The id of the cluster's controller, or nil when it names none of its brokers (librdkafka's mock
    /// cluster names broker 0, which it does not have). Throws when no broker answers within `timeout`;
    /// blocks for at most `timeout` and a second.
    func controller(timeout: Duration) throws(KafkaError) -> Int32? {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        try KafkaError.check(rd_kafka_metadata(pointer, 0, nil, &metadata, timeout.timeoutMilliseconds))
        defer { rd_kafka_metadata_destroy(metadata) }
        guard let metadata, let brokers = metadata.pointee.brokers else { return nil }
        let id = rd_kafka_controllerid(pointer, 1000)
        return UnsafeBufferPointer(start: brokers, count: Int(metadata.pointee.broker_cnt)).contains { $0.id == id } ? id : nil
    }

    /// The low and high watermark offsets of a partition, asked of its leader. Blocks for at most `timeout`.
    func watermarks(topic: String, partition: Int32, timeout: Duration) throws(KafkaError) -> (low: Int64, high: Int64) {
        var low: Int64 = 0
        var high: Int64 = 0
        try KafkaError.check(rd_kafka_query_watermark_offsets(
            pointer, topic, partition, &low, &high, timeout.timeoutMilliseconds))
        return (low, high)
    }
}
