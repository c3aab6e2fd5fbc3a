import Foundation
import Kafka
@testable import TestSupport
import Testing

/// What the console reads of a consumer group: its members (DescribeConsumerGroups) against noida-db, an
/// independent Kafka-protocol server, and its committed offsets against each partition's end.
@Suite(.tags(.live), .serialized) struct ConsumerGroupTests {
    @Test func aGroupsMembersAndLagAreRead() async throws {
        let server = try NoidaServer()
        var configuration = KafkaConfiguration(bootstrapServers: server.bootstrapServers, clientID: "described-member")
        let admin = try KafkaAdmin(configuration: configuration)
        #expect(try await admin.createTopics([NewTopic(name: "described", partitions: 2, replicationFactor: 1)], timeout: .seconds(10))
            .map(\.error) == [nil])
        let producer = try KafkaProducer(configuration: configuration)
        for index in 0..<5 { _ = try await producer.send(OutgoingMessage(topic: "described", key: "k\(index)", value: [1], partition: 0)) }
        await producer.close()

        configuration.groupID = "described-group"
        let consumer = try KafkaConsumer(configuration: configuration, subscribingTo: ["described"])
        defer { consumer.close() }
        var read = 0
        for try await message in consumer.messages {
            read += 1
            if read == 3 { try consumer.commit(message); try consumer.commitSync(); break }
        }
        var member: ConsumerGroupDescription.Member?
        let deadline = ContinuousClock.now + .seconds(30)
        while member == nil, ContinuousClock.now < deadline {
            if case .success(let group)? = try await admin.describeConsumerGroups(["described-group"], timeout: .seconds(5))["described-group"] {
                member = group.members.first
            }
            if member == nil { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(member?.clientID == "described-member")
        #expect(Set(member?.partitions ?? []) == [TopicPartition(topic: "described", partition: 0), TopicPartition(topic: "described", partition: 1)])

        let lag = try ConsumerGroupLag.read(group: "described-group", topics: ["described"], configuration: configuration)
        #expect(lag.partitions.map(\.end).sorted() == [0, 5])
        #expect(lag.partitions.first { $0.topicPartition.partition == 0 }?.committed == 3)
        #expect(lag.total == 2, "5 on partition 0, 3 committed")
    }
}
