import Foundation
import Kafka
@testable import TestSupport
import Testing

/// The mock cluster's API, which hands each request to the cluster's thread and waits for its answer.
@Suite(.tags(.kafka)) struct MockClusterTests {
    @Test func topicsMadeAtOnceHaveTheirOwnPartitionsAndATakenNameIsRefused() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopics([("three", 3), ("five", 5)])
        try cluster.createTopic("one", partitions: 1)
        let producer = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "mock-tests"))
        #expect(try ["three", "five", "one"].map { try producer.partitionCount(topic: $0, timeout: .seconds(10)) } == [3, 5, 1])
        let refused = #expect(throws: KafkaError.self) { try cluster.createTopics([("seven", 7), ("five", 2)]) }
        #expect(refused?.code == 36, "TOPIC_ALREADY_EXISTS: \(String(describing: refused))")
        #expect(try producer.partitionCount(topic: "five", timeout: .seconds(10)) == 5, "the refused topic is unchanged")
        await producer.close()
    }

    @Test func aBrokerSetDownRefusesUntilItIsSetUp() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("t", partitions: 1)
        var configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "mock-tests")
        configuration.deliveryTimeout = .seconds(2)
        let producer = try KafkaProducer(configuration: configuration)
        try cluster.setBrokerDown(1)
        await #expect(throws: KafkaError.self) { try await producer.send(OutgoingMessage(topic: "t", key: "k", value: [1])) }
        try cluster.setBrokerUp(1)
        #expect(try await producer.send(OutgoingMessage(topic: "t", key: "k", value: [2])).error == nil)
        await producer.close()
    }

    /// A topic the cluster does not have is not learned: asking for it by name would create it with the broker's
    /// defaults wherever automatic creation is on (the mock, Kafka's default), before `registrar topics` makes it.
    @Test func learningPartitionsCreatesNoTopic() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("made", partitions: 2)
        let configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "mock-tests")
        let producer = try KafkaProducer(configuration: configuration)
        await withCheckedContinuation { learned in
            producer.learnPartitions(of: ["made", "missing"], timeout: .seconds(10)) { learned.resume() }
        }
        let admin = try KafkaAdmin(configuration: configuration)
        #expect(try await admin.describeTopics(timeout: .seconds(10)).map(\.name) == ["made"])
        await producer.close()
    }

    /// What a producer learns ahead is asked on a thread of its own: a broker that never answers holds neither the call
    /// nor the producer's close, and the producer still delivers once a broker is there.
    @Test func learningPartitionsFromNoBrokerHoldsNothingUp() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("t", partitions: 2)
        try cluster.setBrokerDown(1)
        var configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "mock-tests")
        configuration.deliveryTimeout = .seconds(20)
        let producer = try KafkaProducer(configuration: configuration)
        producer.learnPartitions(of: ["t", "unknown"], timeout: .seconds(1))
        try cluster.setBrokerUp(1)
        #expect(try await producer.send(OutgoingMessage(topic: "t", key: "k", value: [1])).error == nil)
        let unheard = try KafkaProducer(configuration: KafkaConfiguration(bootstrapServers: "127.0.0.1:1", clientID: "mock-tests"))
        unheard.learnPartitions(of: ["t"], timeout: .seconds(1))
        await unheard.close()
        await producer.close()
    }
}
