import Foundation
import Kafka
import Synchronization
@testable import TestSupport
import Testing

/// Messages handed out in batches on the consumer's polling thread, and copied to another topic from librdkafka's
/// buffers (the relay's path), against an in-process mock cluster.
@Suite(.tags(.kafka, .serial)) struct BatchTests {
    let cluster: MockCluster
    let configuration: KafkaConfiguration

    init() throws {
        cluster = try MockCluster(brokers: 1)
        configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "batch-tests")
    }

    /// Keys, empty and binary values, null and repeated headers survive a copy made on the polling thread, in order,
    /// and each copy's delivery report reaches the handler.
    @Test func messagesAreCopiedIntactFromTheirBatches() async throws {
        try cluster.createTopic("in", partitions: 1, replicationFactor: 1)
        try cluster.createTopic("out", partitions: 1, replicationFactor: 1)
        let sent = (0..<50).map(Self.message)
        let source = try KafkaProducer(configuration: configuration)
        for message in sent { try await source.send(message) }
        await source.close()

        // Handlers run on librdkafka's and the consumer's threads: they record, the test checks afterwards.
        let reports = Mutex<[DeliveryReport]>([])
        let copier = try KafkaProducer(configuration: configuration) { report in reports.withLock { $0.append(report) } }
        let produced = Mutex<[(topic: String, offset: Int64, id: UInt64?)]>([])
        let reader = try KafkaConsumer(configuration: configuration, assignment: [
            TopicPartitionOffset(topic: "in", partition: 0, offset: .beginning),
        ])
        let copying = Task {
            try await reader.consume { batch in
                for message in batch {
                    let id = try? copier.produce(copying: message, to: "out")
                    produced.withLock { $0.append((message.topic, message.offset, id)) }
                }
            }
        }
        try await waitUntil { produced.withLock { $0.count } == sent.count && reports.withLock { $0.count } == sent.count }
        copying.cancel()
        try await copying.value
        let copied = produced.withLock { $0 }
        #expect(copied.map(\.topic) == Array(repeating: "in", count: sent.count))
        #expect(copied.map(\.offset) == Array(0..<Int64(sent.count)))
        #expect(Set(copied.compactMap(\.id)) == Set(reports.withLock { $0 }.map(\.messageID)))
        #expect(reports.withLock { $0 }.allSatisfy { $0.error == nil && $0.topic == "out" })
        reader.close()
        await copier.close()

        let check = try KafkaConsumer(configuration: configuration, assignment: [
            TopicPartitionOffset(topic: "out", partition: 0, offset: .beginning),
        ])
        var copies: [KafkaMessage] = []
        for try await message in check.messages {
            copies.append(message)
            if copies.count == sent.count { break }
        }
        check.close()
        #expect(copies.map { $0.key } == sent.map { $0.key })
        #expect(copies.map { $0.value } == sent.map { $0.value })
        #expect(copies.map { $0.headers } == sent.map { $0.headers })
    }

    /// Commits of next offsets are what a group member reads from after a restart.
    @Test func committedNextOffsetsAreWhereTheGroupResumes() async throws {
        try cluster.createTopic("c", partitions: 2, replicationFactor: 1)
        let producer = try KafkaProducer(configuration: configuration)
        for index in 0..<6 { try await producer.send(OutgoingMessage(topic: "c", value: [UInt8(index)], partition: Int32(index % 2))) }
        await producer.close()
        var group = configuration
        group.groupID = "resumes"
        let first = try KafkaConsumer(configuration: group, assignment: [
            TopicPartitionOffset(topic: "c", partition: 0, offset: .beginning),
            TopicPartitionOffset(topic: "c", partition: 1, offset: .beginning),
        ])
        try first.commit(nextOffsets: [TopicPartition(topic: "c", partition: 0): 2, TopicPartition(topic: "c", partition: 1): 1])
        try first.commitSync()
        first.close()
        let second = try KafkaConsumer(configuration: group, assignment: [
            TopicPartitionOffset(topic: "c", partition: 0, offset: .stored),
            TopicPartitionOffset(topic: "c", partition: 1, offset: .stored),
        ])
        var offsets: [Int32: Int64] = [:]
        for try await message in second.messages {
            offsets[message.partition] = offsets[message.partition] ?? message.offset
            if offsets.count == 2 { break }
        }
        second.close()
        #expect(offsets == [0: 2, 1: 1])
    }

    /// Message `index` of the source topic: some without a key, some with an empty value, headers null and repeated.
    private static func message(_ index: Int) -> OutgoingMessage {
        let key: [UInt8]? = index % 5 == 0 ? nil : Array("k\(index)".utf8)
        let value: [UInt8] = index % 7 == 0 ? [] : [0, 0xFF, UInt8(index)]
        let headers = [KafkaHeader(key: "h", value: [0xC3, 0x28]), KafkaHeader(key: "n", value: nil),
                       KafkaHeader(key: "h", value: Array("\(index)".utf8))]
        return OutgoingMessage(topic: "in", key: key, value: value, headers: headers)
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { Issue.record("timed out"); return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
