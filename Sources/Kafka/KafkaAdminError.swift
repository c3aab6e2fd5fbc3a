/// Why an Admin API request failed as a whole (per-topic failures are part of its result).
public enum KafkaAdminError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The cluster answers but names none of its brokers as controller, to which librdkafka sends
    /// CreateTopics and DescribeConfigs. librdkafka's mock cluster is such a cluster (it has no CreateTopics either).
    case noController
    /// librdkafka or the cluster refused or did not answer the request.
    case kafka(KafkaError)

    public var description: String {
        switch self {
        case .noController: "the cluster names none of its brokers as controller, so it can neither create topics nor describe their configuration"
        case .kafka(let error): "\(error)"
        }
    }
}

/// An error that may stand for a `KafkaError` of librdkafka's (e.g. to tell a broker that cannot be reached).
public protocol KafkaErrorWrapping: Error {
    /// The librdkafka error behind this one, if any.
    var kafkaError: KafkaError? { get }
}

extension KafkaAdminError: KafkaErrorWrapping {
    public var kafkaError: KafkaError? {
        if case .kafka(let error) = self { error } else { nil }
    }
}
