import Domain
import Kafka

/// Creates and checks a cluster's topics from the table, through the Kafka Admin API.
public struct TopicProvisioner: Sendable {
    public var table: [TopicSpec]
    public var replication: TopicReplication
    /// How long each Admin API request may take.
    public var timeout: Duration
    private let admin: KafkaAdmin

    public init(admin: KafkaAdmin, table: [TopicSpec] = Topic.all, replication: TopicReplication = TopicReplication(),
                timeout: Duration = .seconds(30)) {
        self.admin = admin
        self.table = table
        self.replication = replication
        self.timeout = timeout
    }

    /// Creates every topic of the table with its partitions, retention and replication; topics that exist are
    /// left as they are (`check` says whether they agree). Returns each topic's answer in the table's order.
    public func create() async throws(TopicProvisioningError) -> [TopicCreation] {
        let topics = table.map {
            NewTopic(name: $0.name, partitions: $0.partitions, replicationFactor: replication.factor,
                     configuration: $0.configuration(replication))
        }
        let answers: [TopicCreation]
        do {
            answers = try await admin.createTopics(topics, timeout: timeout)
        } catch {
            throw .request("CreateTopics", error)
        }
        let failed = answers.filter { $0.error != nil && !$0.alreadyExisted }
        guard failed.isEmpty else { throw .topicsFailed(failed.map { ($0.topic, $0.error!) }) }
        let order = Dictionary(table.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        return answers.sorted { order[$0.topic, default: .max] < order[$1.topic, default: .max] }
    }

    /// Every difference between the table and the cluster: missing topics, other partition counts,
    /// replication, retention, cleanup policy or `min.insync.replicas`. Empty when all agree.
    public func check() async throws(TopicProvisioningError) -> [TopicDiscrepancy] {
        let topics: [TopicDescription]
        do {
            topics = try await admin.describeTopics(timeout: timeout)
        } catch {
            throw .request("Metadata", error)
        }
        let present = Set(topics.map(\.name))
        let described = table.map(\.name).filter(present.contains)
        var configurations: [String: [String: String]] = [:]
        if !described.isEmpty {
            let answers: [String: Result<[String: String], KafkaError>]
            do {
                answers = try await admin.describeConfigs(topics: described, timeout: timeout)
            } catch {
                throw .request("DescribeConfigs", error)
            }
            for (topic, answer) in answers {
                switch answer {
                case .success(let configuration): configurations[topic] = configuration
                case .failure(let error): throw .topicsFailed([(topic, error)])
                }
            }
        }
        return TopicDiscrepancy.between(table, replication: replication, topics: topics, configurations: configurations)
    }
}

/// Why topics could not be created or checked.
public enum TopicProvisioningError: KafkaErrorWrapping, CustomStringConvertible {
    /// The cluster did not answer the request (`api`) at all.
    case request(_ api: String, KafkaAdminError)
    /// The cluster refused these topics.
    case topicsFailed([(topic: String, error: KafkaError)])

    public var kafkaError: KafkaError? {
        if case .request(_, let error) = self { error.kafkaError } else { nil }
    }

    public var description: String {
        switch self {
        case .request(let api, .noController):
            "\(api) impossible: \(KafkaAdminError.noController) (is this the local mock broker? It has no CreateTopics;"
                + " `registrar-dev broker` creates Registrar's topics itself)"
        case .request(let api, let error):
            "\(api) failed: \(error)"
        case .topicsFailed(let failures):
            failures.map { "\($0.topic): \($0.error)" }.joined(separator: "; ")
        }
    }
}
