import Foundation
import Kafka

/// Waits for the message keyed by one id on an outcome topic. Create it before publishing the
/// request: it starts reading at each partition's end as it is when created, so it cannot miss the answer.
public final class OutcomeWaiter: Sendable {
    private let consumer: KafkaConsumer

    public init(topic: String, configuration: KafkaConfiguration, timeout: Duration = .seconds(10)) throws {
        let probe = try KafkaConsumer(configuration: configuration, assignment: [])
        defer { probe.close() }
        let count = try probe.partitionCount(topic: topic, timeout: timeout)
        var assignment: [TopicPartitionOffset] = []
        for partition in 0..<Int32(count) {
            let marks = try probe.watermarks(topic: topic, partition: partition, timeout: timeout)
            assignment.append(TopicPartitionOffset(topic: topic, partition: partition, offset: .offset(marks.high)))
        }
        consumer = try KafkaConsumer(configuration: configuration, assignment: assignment)
    }

    /// The first message keyed `key`, or nil when none came within `timeout`.
    public func wait(forKey key: String, timeout: Duration) async throws -> KafkaMessage? {
        try await withThrowingTaskGroup(of: KafkaMessage?.self) { group in
            group.addTask {
                for try await message in self.consumer.messages where message.keyString == key { return message }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    deinit { consumer.close() }
}
