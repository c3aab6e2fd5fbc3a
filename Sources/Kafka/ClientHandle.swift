internal import CRDKafka
import Foundation
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
    private let isAbandoned = Atomic(false)

    init(
        type: rd_kafka_type_t, properties: [(String, String)], callbacks: ClientCallbacks
    ) throws(KafkaError) {
        let configuration = try NativeConfiguration(properties)
        configuration.setCallbacks(callbacks)
        self.pointer = try configuration.makeClient(type)
        self.callbacks = callbacks
    }

    deinit {
        guard !isKept.load(ordering: .acquiring) else { return }
        guard isAbandoned.load(ordering: .acquiring) else { return rd_kafka_destroy(pointer) }
        // A consumer destroyed without closing still winds down its group handler and broker threads: off the
        // releasing thread (maybe one of Swift's pool), which must not wait on a broker that is gone.
        nonisolated(unsafe) let pointer = self.pointer
        let callbacks = self.callbacks
        Thread {
            rd_kafka_destroy_flags(pointer, Int32(RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE))
            withExtendedLifetime(callbacks) {}
        }.start()
    }

    /// Never destroys the handle, and keeps its callbacks alive, until the process exits (see `FirstAssignment`).
    func keepUntilExit() {
        guard !isKept.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = Unmanaged.passRetained(callbacks)
    }

    /// Destroys the handle, once released, without closing its consumer (no final commit, no leaving the group:
    /// `RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE`), on a thread of its own, waited for by nobody.
    func abandonOnRelease() {
        isAbandoned.store(true, ordering: .releasing)
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

    /// Makes this client know where the partitions of those of `topics` the cluster has are (librdkafka keeps a topic's
    /// metadata only once the client has a handle on it). A topic it does not have is left alone: a handle on it would
    /// ask for it by name, which creates it with the broker's defaults wherever automatic creation is on. Two requests:
    /// every topic's metadata, then the known topics'. Blocks for at most `timeout` each.
    func loadMetadata(of topics: [String], timeout: Duration) throws(KafkaError) {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        try KafkaError.check(rd_kafka_metadata(pointer, 1, nil, &metadata, timeout.timeoutMilliseconds))
        let existing = metadata.flatMap { answer in
            answer.pointee.topics.map { UnsafeBufferPointer(start: $0, count: Int(answer.pointee.topic_cnt)) }
        }.map { Set($0.filter { $0.err == RD_KAFKA_RESP_ERR_NO_ERROR }.map { String(cString: $0.topic) }) } ?? []
        rd_kafka_metadata_destroy(metadata)
        let handles = topics.filter(existing.contains).compactMap { rd_kafka_topic_new(pointer, $0, nil) }
        defer { handles.forEach { rd_kafka_topic_destroy($0) } }
        try KafkaError.check(rd_kafka_metadata(pointer, 0, nil, &metadata, timeout.timeoutMilliseconds))
        rd_kafka_metadata_destroy(metadata)
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

    /// The oldest and next offsets of a partition, asked of its leader (ListOffsets for the earliest and the latest
    /// offset). Blocks for at most `timeout`, also while the leader is down: librdkafka 2.0.2's
    /// `rd_kafka_query_watermark_offsets` ignores its timeout then (confluentinc/librdkafka#2588, fixed in 2.3.0) and
    /// waits for as long as the broker stays away, so `rd_kafka_offsets_for_times`, which keeps to its own, asks instead.
    func watermarks(topic: String, partition: Int32, timeout: Duration) throws(KafkaError) -> (low: Int64, high: Int64) {
        let deadline = ContinuousClock.now + timeout
        let low = try listedOffset(Int64(RD_KAFKA_OFFSET_BEGINNING), topic: topic, partition: partition, timeout: timeout)
        let high = try listedOffset(Int64(RD_KAFKA_OFFSET_END), topic: topic, partition: partition, timeout: deadline - .now)
        return (low < 0 ? high : low, high)
    }

    /// The offset the partition's leader lists for `timestamp` (`RD_KAFKA_OFFSET_BEGINNING`: the first; `END`: the next).
    private func listedOffset(_ timestamp: Int64, topic: String, partition: Int32, timeout: Duration) throws(KafkaError) -> Int64 {
        let list = TopicPartitionList(capacity: 1)
        list.add(topic: topic, partition: partition, offset: timestamp)
        try KafkaError.check(rd_kafka_offsets_for_times(pointer, list.pointer, timeout.timeoutMilliseconds))
        if let error = list.firstError { throw error }
        let offset = TopicPartitionList.elements(of: list.pointer)[0].offset
        guard timestamp != Int64(RD_KAFKA_OFFSET_END) || offset >= 0 else {
            throw KafkaError(code: KafkaError.Code.noOffset, message: "the leader of \(topic) [\(partition)] listed no offset")
        }
        return offset
    }
}
