import Synchronization

/// Whether a cooperative-sticky group member has been assigned partitions yet. librdkafka 2.0.2 aborts
/// the process when such a member is destroyed after joining its group and before its first assignment
/// (its assignor state is still NULL: confluentinc/librdkafka#4312, fixed in 2.3.0), as a worker stopped
/// or following a restarted broker while it joins would be; so `KafkaConsumer.close()` keeps the handle
/// of a member never assigned until the process exits instead.
final class FirstAssignment: Sendable {
    private let happened = Atomic(false)

    func record() { happened.store(true, ordering: .relaxed) }

    var hasHappened: Bool { happened.load(ordering: .relaxed) }
}
