import Foundation
import Kafka

/// Reads what topics hold right now: every partition from its first to its last message at the
/// time of the call. For status queries and audits; not for processing (it joins no group).
public enum TopicSnapshot {
    /// The messages of `topics` accepted by `include`, in each partition's order.
    public static func read(_ topics: [String], configuration: KafkaConfiguration, timeout: Duration = .seconds(10),
                            where include: (KafkaMessage) -> Bool = { _ in true }) async throws -> [KafkaMessage] {
        let consumer = try KafkaConsumer(configuration: configuration, assignment: [])
        do {
            let collected = try await read(topics, with: consumer, timeout: timeout, where: include)
            await consumer.close(within: timeout)
            return collected
        } catch {
            await consumer.close(within: timeout)
            throw error
        }
    }

    private static func read(_ topics: [String], with consumer: KafkaConsumer, timeout: Duration,
                             where include: (KafkaMessage) -> Bool) async throws -> [KafkaMessage] {
        var ends: [TopicPartition: Int64] = [:]
        var assignment: [TopicPartitionOffset] = []
        for topic in topics {
            let count = try consumer.partitionCount(topic: topic, timeout: timeout)
            for partition in 0..<Int32(count) {
                let marks = try consumer.watermarks(topic: topic, partition: partition, timeout: timeout)
                guard marks.high > marks.low else { continue }
                ends[TopicPartition(topic: topic, partition: partition)] = marks.high
                assignment.append(TopicPartitionOffset(topic: topic, partition: partition, offset: .offset(marks.low)))
            }
        }
        guard !assignment.isEmpty else { return [] }
        try consumer.assign(assignment)
        var collected: [KafkaMessage] = []
        let deadline = ContinuousClock.now + timeout
        for try await message in consumer.messages {
            let partition = TopicPartition(topic: message.topic, partition: message.partition)
            if include(message) { collected.append(message) }
            if let end = ends[partition], message.offset + 1 >= end { ends[partition] = nil }
            if ends.isEmpty || ContinuousClock.now > deadline { break }
        }
        return collected
    }
}
