internal import CRDKafka
#if canImport(Glibc)
import Glibc
#endif

/// A consumer group as its coordinator describes it: its state and its members, each with its partitions.
public struct ConsumerGroupDescription: Sendable {
    public struct Member: Sendable {
        public var clientID: String
        public var consumerID: String
        public var host: String
        public var partitions: [TopicPartition]
    }

    public var group: String
    /// E.g. `Stable`, `PreparingRebalance`, `Empty`, `Dead`.
    public var state: String
    public var members: [Member]
}

extension KafkaAdmin {
    /// Describes each of `groups`, or gives the error the cluster gave for it (librdkafka's mock cluster, for
    /// one, cannot describe groups). Waits at most `timeout`.
    public func describeConsumerGroups(
        _ groups: [String], timeout: Duration
    ) async throws(KafkaAdminError) -> [String: Result<ConsumerGroupDescription, KafkaError>] {
        try await blocking { [client] () throws(KafkaAdminError) in
            let names = groups.map { strdup($0) }
            defer { names.forEach { free($0) } }
            var pointers = names.map { UnsafePointer($0) }
            let result = try AdminRequest(client, .describeConsumerGroups, timeout: timeout) { rk, options, queue in
                rd_kafka_DescribeConsumerGroups(rk, &pointers, pointers.count, options, queue)
            }
            var count = 0
            guard let described = rd_kafka_event_DescribeConsumerGroups_result(result.event),
                  let list = rd_kafka_DescribeConsumerGroups_result_groups(described, &count) else { return [:] }
            var answers: [String: Result<ConsumerGroupDescription, KafkaError>] = [:]
            for group in (0..<count).compactMap({ list[$0] }) {
                let name = String(cString: rd_kafka_ConsumerGroupDescription_group_id(group))
                if let error = rd_kafka_ConsumerGroupDescription_error(group) {
                    answers[name] = .failure(KafkaError(code: Int32(rd_kafka_error_code(error).rawValue),
                                                        message: String(cString: rd_kafka_error_string(error))))
                    continue
                }
                let members = (0..<rd_kafka_ConsumerGroupDescription_member_count(group)).compactMap {
                    rd_kafka_ConsumerGroupDescription_member(group, $0)
                }.map { member in
                    let assigned = rd_kafka_MemberDescription_assignment(member).flatMap { rd_kafka_MemberAssignment_partitions($0) }
                    return ConsumerGroupDescription.Member(
                        clientID: String(cString: rd_kafka_MemberDescription_client_id(member)),
                        consumerID: String(cString: rd_kafka_MemberDescription_consumer_id(member)),
                        host: String(cString: rd_kafka_MemberDescription_host(member)),
                        partitions: assigned.map { TopicPartitionList.topicPartitions(of: UnsafeMutablePointer(mutating: $0)) } ?? [])
                }
                answers[name] = .success(ConsumerGroupDescription(
                    group: name, state: String(cString: rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupDescription_state(group))),
                    members: members))
            }
            return answers
        }
    }
}
