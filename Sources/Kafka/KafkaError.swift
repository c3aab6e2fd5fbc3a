internal import CRDKafka

/// An error reported by librdkafka or by this library, with librdkafka's code and text.
public struct KafkaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `rd_kafka_resp_err_t` value: negative for client-side errors, positive for broker errors.
    public var code: Int32
    /// The symbolic name, e.g. `_TRANSPORT` or `UNKNOWN_TOPIC_OR_PART`.
    public var name: String
    /// A human-readable explanation.
    public var message: String
    /// Whether the same operation may succeed if tried again.
    public var isRetriable: Bool
    /// Whether the client instance is unusable and must be recreated.
    public var isFatal: Bool

    public init(code: Int32, message: String? = nil, isRetriable: Bool? = nil, isFatal: Bool? = nil) {
        let err = rd_kafka_resp_err_t(code)
        self.code = code
        self.name = String(cString: rd_kafka_err2name(err))
        self.message = message ?? String(cString: rd_kafka_err2str(err))
        self.isRetriable = isRetriable ?? Self.retriableCodes.contains(code)
        self.isFatal = isFatal ?? (code == Code.fatal)
    }

    public var description: String { "\(name) (\(code)): \(message)" }

    /// Codes that usually clear up on their own (network trouble, leader changes, full queues).
    private static let retriableCodes: Set<Int32> = [
        Code.transport, Code.timedOut, Code.messageTimedOut, Code.queueFull, Code.allBrokersDown,
        Code.requestTimedOut, Code.notLeaderForPartition, Code.leaderNotAvailable,
        Code.notEnoughReplicas, Code.notEnoughReplicasAfterAppend, Code.coordinatorLoadInProgress,
        Code.coordinatorNotAvailable, Code.notCoordinator, Code.rebalanceInProgress,
    ]
}

extension KafkaError {
    /// Frequently inspected `rd_kafka_resp_err_t` values.
    public enum Code {
        public static let noError = Int32(RD_KAFKA_RESP_ERR_NO_ERROR.rawValue)
        public static let transport = Int32(RD_KAFKA_RESP_ERR__TRANSPORT.rawValue)
        public static let timedOut = Int32(RD_KAFKA_RESP_ERR__TIMED_OUT.rawValue)
        public static let messageTimedOut = Int32(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT.rawValue)
        public static let queueFull = Int32(RD_KAFKA_RESP_ERR__QUEUE_FULL.rawValue)
        public static let allBrokersDown = Int32(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN.rawValue)
        public static let resolve = Int32(RD_KAFKA_RESP_ERR__RESOLVE.rawValue)
        public static let invalidArgument = Int32(RD_KAFKA_RESP_ERR__INVALID_ARG.rawValue)
        public static let invalidConfiguration = Int32(RD_KAFKA_RESP_ERR__INVALID_TYPE.rawValue)
        public static let unknownTopic = Int32(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC.rawValue)
        public static let unknownPartition = Int32(RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION.rawValue)
        public static let unknownTopicOrPartition = Int32(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART.rawValue)
        public static let noOffset = Int32(RD_KAFKA_RESP_ERR__NO_OFFSET.rawValue)
        public static let state = Int32(RD_KAFKA_RESP_ERR__STATE.rawValue)
        public static let destroyed = Int32(RD_KAFKA_RESP_ERR__DESTROY.rawValue)
        /// A wait given up (`KafkaProducer.send` cancelled).
        public static let interrupted = Int32(RD_KAFKA_RESP_ERR__INTR.rawValue)
        public static let fatal = Int32(RD_KAFKA_RESP_ERR__FATAL.rawValue)
        public static let purged = Int32(RD_KAFKA_RESP_ERR__PURGE_QUEUE.rawValue)
        public static let requestTimedOut = Int32(RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT.rawValue)
        /// A message over the producer's `message.max.bytes` or the topic's `max.message.bytes`.
        public static let messageTooLarge = Int32(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE.rawValue)
        public static let notLeaderForPartition = Int32(RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION.rawValue)
        public static let leaderNotAvailable = Int32(RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE.rawValue)
        public static let notEnoughReplicas = Int32(RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS.rawValue)
        public static let notEnoughReplicasAfterAppend =
            Int32(RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND.rawValue)
        public static let coordinatorLoadInProgress = Int32(RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS.rawValue)
        public static let coordinatorNotAvailable = Int32(RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE.rawValue)
        public static let notCoordinator = Int32(RD_KAFKA_RESP_ERR_NOT_COORDINATOR.rawValue)
        public static let topicAlreadyExists = Int32(RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS.rawValue)
        public static let rebalanceInProgress = Int32(RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS.rawValue)
    }
}

extension KafkaError {
    /// Wraps a response code, or returns nil for `NO_ERROR`.
    init?(_ err: rd_kafka_resp_err_t, message: String? = nil) {
        guard err != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        self.init(code: Int32(err.rawValue), message: message)
    }

    /// Takes ownership of an `rd_kafka_error_t` (destroys it) and returns its Swift form.
    init(consuming error: OpaquePointer) {
        defer { rd_kafka_error_destroy(error) }
        self.init(
            code: Int32(rd_kafka_error_code(error).rawValue),
            message: String(cString: rd_kafka_error_string(error)),
            isRetriable: rd_kafka_error_is_retriable(error) != 0,
            isFatal: rd_kafka_error_is_fatal(error) != 0)
    }

    /// An error raised by this library itself (not by librdkafka).
    static func state(_ message: String) -> KafkaError {
        KafkaError(code: Code.state, message: message, isRetriable: false, isFatal: false)
    }

    /// Throws the `rd_kafka_error_t` if non-nil, destroying it.
    static func check(_ error: OpaquePointer?) throws(KafkaError) {
        if let error { throw KafkaError(consuming: error) }
    }

    /// Throws for any code other than `NO_ERROR`.
    static func check(_ err: rd_kafka_resp_err_t) throws(KafkaError) {
        if let error = KafkaError(err) { throw error }
    }
}
