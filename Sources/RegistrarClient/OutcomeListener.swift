import Kafka
import Synchronization

/// Awaits messages by key on a few topics (the outcome topics), with one consumer shared by every
/// request waiting on it. It reads each partition from its end as it was when the listener was
/// made, so an outcome published after that cannot be missed; messages nobody awaits are dropped,
/// and so are messages `admits` refuses (forged ones): the wait goes on for an admitted one.
public final class OutcomeListener: Sendable {
    private let consumer: KafkaConsumer
    private let slots = Slots()
    private let reader: Task<Void, Never>

    /// Starts reading `topics` from their current ends; `timeout` bounds each metadata query. Only messages
    /// `admits` takes settle a wait.
    public init(topics: [String], configuration: KafkaConfiguration, timeout: Duration = .seconds(10),
                admits: @escaping @Sendable (KafkaMessage) -> Bool) throws {
        consumer = try KafkaConsumer(configuration: configuration, assignment: [])
        do {
            var assignment: [TopicPartitionOffset] = []
            for topic in topics {
                for partition in 0..<Int32(try consumer.partitionCount(topic: topic, timeout: timeout)) {
                    let marks = try consumer.watermarks(topic: topic, partition: partition, timeout: timeout)
                    assignment.append(TopicPartitionOffset(topic: topic, partition: partition, offset: .offset(marks.high)))
                }
            }
            try consumer.assign(assignment)
        } catch {
            consumer.closeInBackground()
            throw error
        }
        reader = Task { [consumer, slots] in
            do {
                for try await message in consumer.messages {
                    guard let key = message.keyString else { continue }
                    let slot = Slots.Key(topic: message.topic, key: key)
                    guard slots.isAwaited(slot) else { continue }
                    guard admits(message) else {
                        slots.countRefused()
                        continue
                    }
                    slots.settle(slot, with: message)
                }
            } catch {}
            slots.finish()
        }
    }

    /// Returns once the listener stopped reading (closed, or its consumer failed for good).
    public func ended() async { await reader.value }

    /// How many awaited messages were refused (not admitted) so far.
    public var refusedCount: Int { slots.refusedCount }

    /// Runs `action` (which publishes the request) and returns the first admitted message keyed `key` on
    /// `topic` that arrives after `action` began, or nil when none came within `timeout` of its end.
    /// Throws `Closed` when the listener stopped reading meanwhile (closed, or its consumer failed).
    public func message(keyed key: String, on topic: String, within timeout: Duration,
                        after action: () async throws -> Void) async throws -> KafkaMessage? {
        let slot = Slots.Key(topic: topic, key: key)
        slots.expect(slot)
        do {
            try await action()
        } catch {
            slots.settle(slot, with: nil)
            throw error
        }
        let timer = Task { [slots] in
            try await Task.sleep(for: timeout)
            slots.settle(slot, with: nil)
        }
        defer { timer.cancel() }
        let message = await slots.wait(for: slot)
        if message == nil, slots.isFinished { throw Closed() }
        return message
    }

    /// The listener stopped reading before an awaited message came.
    public struct Closed: Error, CustomStringConvertible {
        public var description: String { "the outcome listener was closed (the client was closed or lost its broker)" }
    }

    /// Stops reading, waiting at most `limit` for the consumer to close (see `KafkaConsumer.close(within:)`);
    /// waits still pending end with nil. Returns whether the close finished in time.
    @discardableResult
    public func close(within limit: Duration) async -> Bool { await consumer.close(within: limit) }

    deinit { consumer.closeInBackground() }
}

/// The keys being awaited and, for each, the message once it came or the task waiting for it.
private final class Slots: Sendable {
    struct Key: Hashable { var topic: String; var key: String }

    private enum Slot {
        case expected
        case arrived(KafkaMessage)
        case awaited(CheckedContinuation<KafkaMessage?, Never>)
    }

    private let state = Mutex<(slots: [Key: Slot], finished: Bool)>(([:], false))

    private let refused = Atomic<Int>(0)

    func countRefused() { refused.add(1, ordering: .relaxed) }
    var refusedCount: Int { refused.load(ordering: .relaxed) }

    /// Whether the consumer ended.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Whether a wait for `key` is under way (so a message for it is worth checking).
    func isAwaited(_ key: Key) -> Bool {
        state.withLock { state in
            switch state.slots[key] {
            case .expected?, .awaited?: true
            case .arrived?, nil: false
            }
        }
    }

    func expect(_ key: Key) {
        state.withLock { state in
            if state.slots[key] == nil { state.slots[key] = .expected }
        }
    }

    /// Settles the wait for `key`: with the message that came for it, or with nil once it is over
    /// (timed out, the request not published); a message already there stays to be taken.
    func settle(_ key: Key, with message: KafkaMessage?) {
        let waiting: CheckedContinuation<KafkaMessage?, Never>? = state.withLock { state in
            switch state.slots[key] {
            case .expected?:
                state.slots[key] = message.map(Slot.arrived)
                return nil
            case .awaited(let continuation)?:
                state.slots[key] = nil
                return continuation
            case .arrived?, nil:
                return nil
            }
        }
        waiting?.resume(returning: message)
    }

    func wait(for key: Key) async -> KafkaMessage? {
        await withCheckedContinuation { continuation in
            let ready: KafkaMessage?? = state.withLock { state in
                switch state.slots[key] {
                case .arrived(let message)?:
                    state.slots[key] = nil
                    return .some(message)
                case .expected? where !state.finished:
                    state.slots[key] = .awaited(continuation)
                    return nil
                default:
                    state.slots[key] = nil
                    return .some(nil)
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The consumer ended: every wait ends with nil.
    func finish() {
        let waiting = state.withLock { state in
            state.finished = true
            defer { state.slots = [:] }
            return state.slots.values.compactMap { slot -> CheckedContinuation<KafkaMessage?, Never>? in
                if case .awaited(let continuation) = slot { return continuation }
                return nil
            }
        }
        waiting.forEach { $0.resume(returning: nil) }
    }
}
