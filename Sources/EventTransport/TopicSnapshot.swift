import Foundation
import Kafka
import Support
import Synchronization

/// What topics hold right now: each partition read from its first message (or the start of a window) to its
/// last at the time of the call, within a time limit. For status queries, audits and the console; not for
/// processing (it joins no group).
public struct TopicSnapshot: Sendable {
    /// Which messages of each partition are read.
    public enum Window: Sendable {
        /// All of them.
        case everything
        /// The last `count`.
        case last(Int)
        /// Those at or after a time (looked up by timestamp: a real cluster, not librdkafka's mock).
        case since(Date)
    }

    /// The messages read (those the filter accepted), in each partition's order.
    public var messages: [KafkaMessage]
    /// The partitions not read to their end within the time limit: the snapshot is partial unless this is empty.
    public var unfinished: [TopicPartition]
    /// Each partition read and the end it was read to (the next offset when the read began).
    public var ends: [TopicPartition: Int64]

    /// Whether every partition was read to its end.
    public var isComplete: Bool { unfinished.isEmpty }

    /// Reads `window` of every partition of `topics`, keeping the messages `include` accepts, for at most `timeout`
    /// in all (each broker request for at most `timeout` too); what was read by then is the snapshot, its
    /// `unfinished` partitions named.
    public static func take(_ topics: [String], configuration: KafkaConfiguration, window: Window = .everything,
                            timeout: Duration = .seconds(10),
                            where include: @escaping @Sendable (KafkaMessage) -> Bool = { _ in true }) async throws -> TopicSnapshot {
        let consumer = try KafkaConsumer(configuration: configuration, assignment: [])
        do {
            let snapshot = try await take(topics, with: consumer, window: window, until: ContinuousClock.now + timeout,
                                          timeout: timeout, where: include)
            await consumer.close(within: timeout)
            return snapshot
        } catch {
            await consumer.close(within: timeout)
            throw error
        }
    }

    /// The messages of `topics` accepted by `include`, in each partition's order: `take`'s messages, partial or not.
    public static func read(_ topics: [String], configuration: KafkaConfiguration, timeout: Duration = .seconds(10),
                            where include: @escaping @Sendable (KafkaMessage) -> Bool = { _ in true }) async throws -> [KafkaMessage] {
        try await take(topics, configuration: configuration, timeout: timeout, where: include).messages
    }

    /// The message at `offset` of `partition`, or nil when the partition holds none there (read for at most `timeout`).
    public static func message(at offset: Int64, of partition: TopicPartition, configuration: KafkaConfiguration,
                               timeout: Duration = .seconds(10)) async throws -> KafkaMessage? {
        let consumer = try KafkaConsumer(configuration: configuration, assignment: [])
        let marks = try await offload { try consumer.watermarks(topic: partition.topic, partition: partition.partition, timeout: timeout) }
        guard (marks.low..<marks.high).contains(offset) else {
            await consumer.close(within: timeout)
            return nil
        }
        try consumer.assign([TopicPartitionOffset(topic: partition.topic, partition: partition.partition, offset: .offset(offset))])
        let found = await withTaskGroup(of: KafkaMessage?.self) { group in
            group.addTask {
                do {
                    for try await message in consumer.messages where message.offset >= offset {
                        return message.offset == offset ? message : nil
                    }
                } catch {
                    return nil
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await consumer.close(within: timeout)
        return found
    }

    private static func take(_ topics: [String], with consumer: KafkaConsumer, window: Window, until deadline: ContinuousClock.Instant,
                             timeout: Duration, where include: @escaping @Sendable (KafkaMessage) -> Bool) async throws -> TopicSnapshot {
        let (starts, ends) = try await offload { try bounds(of: topics, with: consumer, window: window, timeout: timeout) }
        let assignment = starts.filter { start in ends[start.key].map { start.value < $0 } ?? false }
        guard !assignment.isEmpty else { return TopicSnapshot(messages: [], unfinished: [], ends: ends) }
        try consumer.assign(assignment.map { TopicPartitionOffset(topic: $0.key.topic, partition: $0.key.partition, offset: .offset($0.value)) })
        let reading = Reading(remaining: ends.filter { assignment[$0.key] != nil })
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await message in consumer.messages where reading.take(message, include) { break }
                } catch {
                    reading.fail(error)
                }
            }
            group.addTask { try? await Task.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
        return try reading.snapshot(ends: ends)
    }

    /// Each partition's first offset to read (by `window`) and its end, asked of the leaders.
    private static func bounds(of topics: [String], with consumer: KafkaConsumer, window: Window,
                               timeout: Duration) throws -> (starts: [TopicPartition: Int64], ends: [TopicPartition: Int64]) {
        var starts: [TopicPartition: Int64] = [:]
        var ends: [TopicPartition: Int64] = [:]
        for topic in topics {
            for partition in 0..<Int32(try consumer.partitionCount(topic: topic, timeout: timeout)) {
                let marks = try consumer.watermarks(topic: topic, partition: partition, timeout: timeout)
                let key = TopicPartition(topic: topic, partition: partition)
                ends[key] = marks.high
                switch window {
                case .everything, .since: starts[key] = marks.low
                case .last(let count): starts[key] = max(marks.low, marks.high - Int64(count))
                }
            }
        }
        if case .since(let time) = window {
            let found = try consumer.offsets(at: time, of: Array(ends.keys), timeout: timeout)
            for key in ends.keys { starts[key] = found[key].map { max($0, starts[key] ?? 0) } ?? ends[key] }
        }
        return (starts, ends)
    }

    /// A read in progress: the messages kept, and how far each partition has yet to go.
    private final class Reading: Sendable {
        private let state: Mutex<(messages: [KafkaMessage], remaining: [TopicPartition: Int64], error: (any Error)?)>

        /// `remaining`: each partition's end.
        init(remaining: [TopicPartition: Int64]) {
            state = Mutex(([], remaining, nil))
        }

        /// Keeps `message` if `include` takes it; whether every partition is read to its end.
        func take(_ message: KafkaMessage, _ include: (KafkaMessage) -> Bool) -> Bool {
            let keep = include(message)
            return state.withLock { state in
                if keep { state.messages.append(message) }
                let partition = TopicPartition(topic: message.topic, partition: message.partition)
                if let end = state.remaining[partition], message.offset + 1 >= end { state.remaining[partition] = nil }
                return state.remaining.isEmpty
            }
        }

        func fail(_ error: any Error) { state.withLock { $0.error = error } }

        func snapshot(ends: [TopicPartition: Int64]) throws -> TopicSnapshot {
            let (messages, remaining, error) = state.withLock { ($0.messages, $0.remaining, $0.error) }
            if let error { throw error }
            return TopicSnapshot(messages: messages, unfinished: remaining.keys.sorted { ($0.topic, $0.partition) < ($1.topic, $1.partition) },
                                 ends: ends)
        }
    }
}
