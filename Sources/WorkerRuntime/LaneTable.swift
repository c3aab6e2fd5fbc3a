import Kafka
import Synchronization

/// The worker's partition lanes and the tasks working them, created as partitions first deliver.
final class LaneTable: Sendable {
    private let lanes = Mutex<[TopicPartition: (lane: PartitionLane, task: Task<Void, Never>)]>([:])
    private let failureContinuation: AsyncStream<any Error>.Continuation
    /// Errors that ended a lane's task (a failed commit, a fatal broker error): they stop the worker.
    let failures: AsyncStream<any Error>

    init() {
        (failures, failureContinuation) = AsyncStream.makeStream(of: (any Error).self)
    }

    /// The lane of `partition`, started with `work` the first time.
    func lane(for partition: TopicPartition, consumer: KafkaConsumer,
              work: @escaping @Sendable (PartitionLane) async throws -> Void) -> PartitionLane {
        lanes.withLock { lanes in
            if let existing = lanes[partition] { return existing.lane }
            let lane = PartitionLane(partition, consumer: consumer)
            let failures = failureContinuation
            let task = Task {
                do { try await work(lane) } catch is CancellationError {} catch { failures.yield(error) }
            }
            lanes[partition] = (lane, task)
            return lane
        }
    }

    /// The partitions whose head message waits for a failing dependency, with its error.
    func dependencyFailures() -> [TopicPartition: String] {
        lanes.withLock { $0 }.reduce(into: [:]) { failures, entry in
            if let failure = entry.value.lane.dependencyFailure { failures[entry.key] = failure }
        }
    }

    /// Lets every lane finish the message in hand (up to `grace`, waited with `sleep`), then cancels what is left.
    func stop(grace: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) async {
        let entries = lanes.withLock { Array($0.values) }
        entries.forEach { $0.lane.stop() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for entry in entries { await entry.task.value } }
            group.addTask { try? await sleep(grace) }
            await group.next()
            // Awaiting a task's value is not cancelled with the waiter: cancel the lanes themselves
            // (one may be waiting for a dependency that is still down), or the group would wait for them.
            entries.forEach { $0.task.cancel() }
            group.cancelAll()
        }
        failureContinuation.finish()
    }
}
