import Kafka
import Synchronization

/// The messages of one partition waiting for their turn, handled one at a time and in order while
/// other partitions go on. A lane pauses its partition in the consumer while it is backed up or
/// while its head message waits to be retried, and resumes it afterwards, so the worker keeps
/// polling (staying within `max.poll.interval.ms`) without buffering without bound.
final class PartitionLane: DependencyWaiting {
    let partition: TopicPartition
    let messages: AsyncStream<KafkaMessage>
    private let continuation: AsyncStream<KafkaMessage>.Continuation
    private let state = Mutex(State())
    private let consumer: KafkaConsumer

    private struct State {
        var waiting = 0
        var retrying = false
        /// Why the head message waits, while it does (a dependency's error).
        var dependencyFailure: String?
        var paused = false
        var stopping = false
    }

    /// Waiting messages at which the partition is paused, and below which it resumes.
    static let highWater = 200
    static let lowWater = 20

    init(_ partition: TopicPartition, consumer: KafkaConsumer) {
        self.partition = partition
        self.consumer = consumer
        (messages, continuation) = AsyncStream.makeStream(of: KafkaMessage.self)
    }

    /// Queues a message from the consumer.
    func append(_ message: KafkaMessage) {
        update { $0.waiting += 1 }
        continuation.yield(message)
    }

    /// The head message was handled (or dead-lettered).
    func finishedOne() {
        update { $0.waiting -= 1 }
    }

    /// The head message is waiting for a retry (true, `because` of a dependency's error) or is being
    /// handled again (false).
    func setRetrying(_ retrying: Bool, because failure: String? = nil) {
        update {
            $0.retrying = retrying
            $0.dependencyFailure = retrying ? failure : nil
        }
    }

    /// The error the head message is waiting out, while it waits.
    var dependencyFailure: String? { state.withLock { $0.dependencyFailure } }

    /// The worker is stopping: the message in hand is finished, the ones waiting are left (uncommitted).
    func stop() {
        state.withLock { $0.stopping = true }
        continuation.finish()
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    private func update(_ change: (inout State) -> Void) {
        let transition: Bool? = state.withLock { state in
            change(&state)
            let shouldPause = state.retrying || state.waiting > Self.highWater
                || (state.paused && state.waiting > Self.lowWater)
            guard shouldPause != state.paused else { return nil }
            state.paused = shouldPause
            return shouldPause
        }
        switch transition {
        case true?: try? consumer.pause(topic: partition.topic, partition: partition.partition)
        case false?: try? consumer.resume(topic: partition.topic, partition: partition.partition)
        case nil: break
        }
    }
}
