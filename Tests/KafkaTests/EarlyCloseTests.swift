import Foundation
import Kafka
import Synchronization
@testable import TestSupport
import Testing

/// A cooperative-sticky consumer closed after joining its group but before its first assignment (a
/// worker stopped, or following a restarted broker, while it joins) ends cleanly. librdkafka 2.0.2
/// aborts the process there (`rd_kafka_sticky_assignor_state_destroy: Assertion 'assignor_state'
/// failed`, confluentinc/librdkafka#4312, fixed in 2.3.0), so this test crashes without the workaround.
@Suite(.tags(.kafka, .serial)) struct EarlyCloseTests {
    @Test func aConsumerClosedBetweenJoiningAndItsFirstAssignmentEndsCleanly() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("early", partitions: 2, replicationFactor: 1)
        // SyncGroup (API 14) answers REBALANCE_IN_PROGRESS (27): the member joins, but is never assigned.
        cluster.pushRequestErrors(apiKey: 14, errors: Array(repeating: 27, count: 200))
        let joined = Mutex(false)
        var configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "early-close")
        configuration.groupID = "early-group"
        configuration.assignmentStrategy = .cooperativeSticky
        configuration.properties["debug"] = "cgrp"
        configuration.logHandler = { entry in
            if entry.message.contains("JoinGroup response: GenerationId") { joined.withLock { $0 = true } }
        }
        var consumer: KafkaConsumer? = try KafkaConsumer(configuration: configuration, subscribingTo: ["early"])
        let polling = Task { [consumer] in for try await _ in consumer!.messages {} }
        try await waitUntil("the consumer to join its group") { joined.withLock { $0 } }
        consumer?.close()
        let ended = await polling.result
        #expect((try? ended.get()) != nil, "the messages end after close")
        consumer = nil  // released: librdkafka 2.0.2 aborts the process here
    }
}
