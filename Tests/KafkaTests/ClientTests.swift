import Foundation
import Kafka
import Synchronization
@testable import TestSupport
import Testing

/// The library in-process, against an in-process mock cluster.
@Suite(.tags(.kafka, .serial)) struct ClientTests {
    let cluster: MockCluster
    let configuration: KafkaConfiguration

    init() throws {
        cluster = try MockCluster(brokers: 1)
        configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "client-tests")
    }

    @Test func sentMessageIsConsumedIntactAndCommitted() async throws {
        try cluster.createTopic("t", partitions: 2, replicationFactor: 1)
        let producer = try KafkaProducer(configuration: configuration)
        let value: [UInt8] = [0, 0xFF, 0xFE, 10, 13]
        let headers = [KafkaHeader(key: "h", value: [0xC3, 0x28]), KafkaHeader(key: "n", value: nil)]
        let report = try await producer.send(OutgoingMessage(topic: "t", key: "k1", value: value, headers: headers))
        #expect(report.error == nil && report.offset == 0)
        await producer.close()

        var group = configuration
        group.groupID = "g"
        let consumer = try KafkaConsumer(configuration: group, subscribingTo: ["t"])
        var iterator = consumer.messages.makeAsyncIterator()
        let message = try #require(try await iterator.next())
        #expect(message.keyString == "k1")
        #expect(message.value == value)
        #expect(message.headers == headers)
        #expect(message.header("h") == [0xC3, 0x28])
        try consumer.commit(message)
        try consumer.commitSync()
        consumer.close()
        #expect(try await iterator.next() == nil)
        #expect(throws: KafkaError.self) { try consumer.commit(message) }

        // A reader of the group's stored offsets starts after the committed message.
        let reader = try KafkaConsumer(configuration: group, assignment: [
            TopicPartitionOffset(topic: "t", partition: message.partition, offset: .stored),
        ])
        let producerAgain = try KafkaProducer(configuration: configuration)
        try await producerAgain.send(OutgoingMessage(topic: "t", value: [2], partition: message.partition))
        var readerIterator = reader.messages.makeAsyncIterator()
        #expect(try await readerIterator.next()?.offset == message.offset + 1)
        reader.close()
        await producerAgain.close()
    }

    @Test func enqueueWaitsForRoomInsteadOfDropping() async throws {
        try cluster.createTopic("burst", partitions: 1, replicationFactor: 1)
        var small = configuration
        small.properties["queue.buffering.max.messages"] = "10"
        let producer = try KafkaProducer(configuration: small)
        let reports = producer.deliveryReports
        var ids = Set<UInt64>()
        for index in 0..<300 {
            ids.insert(try await producer.enqueue(OutgoingMessage(topic: "burst", value: Array("\(index)".utf8))))
        }
        var delivered = Set<UInt64>()
        for await report in reports {
            #expect(report.error == nil)
            delivered.insert(report.messageID)
            if delivered.count == ids.count { break }
        }
        #expect(delivered == ids)
        let consumer = try KafkaConsumer(configuration: configuration, assignment: [])
        #expect(try consumer.watermarks(topic: "burst", partition: 0, timeout: .seconds(5)) == (0, 300))
        consumer.close()
        await producer.close()
    }

    @Test func pausedPartitionDeliversNothingUntilResumed() async throws {
        try cluster.createTopic("p", partitions: 2, replicationFactor: 1)
        let consumer = try KafkaConsumer(configuration: configuration, assignment: [
            TopicPartitionOffset(topic: "p", partition: 0, offset: .beginning),
            TopicPartitionOffset(topic: "p", partition: 1, offset: .beginning),
        ])
        try consumer.pause(topic: "p", partition: 0)
        let producer = try KafkaProducer(configuration: configuration)
        try await producer.send(OutgoingMessage(topic: "p", value: [0], partition: 0))
        try await producer.send(OutgoingMessage(topic: "p", value: [1], partition: 1))
        var iterator = consumer.messages.makeAsyncIterator()
        #expect(try await iterator.next()?.partition == 1)
        try consumer.resume(topic: "p", partition: 0)
        #expect(try await iterator.next()?.partition == 0)
        consumer.close()
        await producer.close()
    }

    @Test func processedOffsetsAreCommittedBeforePartitionsAreRevoked() async throws {
        try cluster.createTopic("handover", partitions: 2, replicationFactor: 1)
        let producer = try KafkaProducer(configuration: configuration)
        for index in 0..<20 {
            try await producer.send(OutgoingMessage(topic: "handover", value: Array("before-\(index)".utf8), partition: Int32(index % 2)))
        }
        let observed = Observed()
        func start(_ name: String) throws -> (KafkaConsumer, Task<Void, any Error>) {
            var settings = configuration
            settings.groupID = "handover-group"
            settings.sessionTimeout = .seconds(6)  // the mock holds a rebalance for (session timeout - 1 s)
            // Cooperative (the default): the revocation happens while the group is stable. With an
            // eager strategy the mock broker refuses commits during the rebalance (REBALANCE_IN_PROGRESS),
            // which Apache Kafka accepts from members of the current generation.
            settings.assignmentStrategy = .cooperativeSticky
            settings.rebalanceHandler = { event in
                switch event {
                case .assigned(let partitions): observed.assignments.withLock { $0[name] = partitions }
                case .lost(let partitions): observed.lost.withLock { $0 += partitions.map { "\(name): \($0)" } }
                case .revoked: break
                }
            }
            settings.errorHandler = { error in observed.errors.withLock { $0.append("\(name): \(error)") } }
            let consumer = try KafkaConsumer(configuration: settings, subscribingTo: ["handover"])
            // Marks messages processed without committing: only the revocation commits them.
            let polling = Task {
                for try await message in consumer.messages {
                    observed.received.withLock { $0[name, default: []].append(String(decoding: message.value, as: UTF8.self)) }
                    try? consumer.markProcessed(message)
                }
            }
            return (consumer, polling)
        }
        let (first, firstPolling) = try start("first")
        try await waitUntil("the first consumer to process every message") {
            observed.received.withLock { $0["first"]?.count ?? 0 } == 20
        }
        let (second, secondPolling) = try start("second")
        try await waitUntil("the second consumer to get a partition") {
            observed.assignments.withLock { $0["second"]?.isEmpty == false }
        }
        for partition in Int32(0)..<2 {
            try await producer.send(OutgoingMessage(topic: "handover", value: Array("after-\(partition)".utf8), partition: partition))
        }
        try await waitUntil("both new messages to be consumed") {
            observed.received.withLock { ($0["first"] ?? []) + ($0["second"] ?? []) }.filter { $0.hasPrefix("after") }.count == 2
        }
        // Processed messages come again only where the first consumer's partitions were lost rather than revoked (its
        // session timed out: a machine too loaded to heartbeat), where nothing can be committed; never for a commit that failed.
        let secondGot = observed.received.withLock { $0["second"] ?? [] }
        let lost = observed.lost.withLock { $0 }
        #expect(secondGot.allSatisfy { $0.hasPrefix("after") } || !lost.isEmpty,
                "the second consumer got \(secondGot) (assignments: \(observed.assignments.withLock { $0 }); errors: \(observed.errors.withLock { $0 }))")
        second.close()
        first.close()
        _ = try await (firstPolling.value, secondPolling.value)
        await producer.close()
    }

    @Test func cooperativeRebalanceHandsOverPartitionsIncrementally() async throws {
        try cluster.createTopic("coop", partitions: 4, replicationFactor: 1)
        let events = Mutex<[String: [RebalanceEvent]]>([:])
        func consumer(_ name: String) throws -> KafkaConsumer {
            var settings = configuration
            settings.groupID = "coop-group"
            settings.sessionTimeout = .seconds(6)  // the mock holds a rebalance for (session timeout - 1 s)
            settings.assignmentStrategy = .cooperativeSticky
            settings.rebalanceHandler = { event in events.withLock { $0[name, default: []].append(event) } }
            return try KafkaConsumer(configuration: settings, subscribingTo: ["coop"])
        }
        func assigned(_ name: String) -> Set<TopicPartition> {
            var current = Set<TopicPartition>()
            for event in events.withLock({ $0[name] ?? [] }) {
                switch event {
                case .assigned(let partitions): current.formUnion(partitions)
                case .revoked(let partitions), .lost(let partitions): current.subtract(partitions)
                }
            }
            return current
        }
        // Rebalance callbacks are served while a consumer polls, so both keep iterating.
        let first = try consumer("first")
        let firstPolling = Task { for try await _ in first.messages {} }
        try await waitUntil("the first consumer to own every partition") { assigned("first").count == 4 }
        let second = try consumer("second")
        let secondPolling = Task { for try await _ in second.messages {} }
        try await waitUntil("the partitions to be shared") { assigned("first").count == 2 && assigned("second").count == 2 }
        #expect(assigned("first").isDisjoint(with: assigned("second")))
        // Cooperative: the first consumer only gave up what moved, never everything at once.
        let firstEvents = events.withLock { $0["first"] ?? [] }
        #expect(firstEvents.contains { if case .revoked(let partitions) = $0 { partitions.count == 2 } else { false } })
        second.close()
        first.close()
        _ = try await (firstPolling.value, secondPolling.value)
    }
}

/// What consumers running in other tasks saw.
private final class Observed: Sendable {
    let assignments = Mutex<[String: [TopicPartition]]>([:])
    let received = Mutex<[String: [String]]>([:])
    /// The partitions a consumer lost (not revoked: its session ended), by consumer.
    let lost = Mutex<[String]>([])
    let errors = Mutex<[String]>([])
}
