/// A change of a group consumer's partitions, reported through `KafkaConfiguration.rebalanceHandler`.
public enum RebalanceEvent: Sendable, Hashable {
    /// The consumer now reads these partitions (in addition, with the cooperative protocol).
    case assigned([TopicPartition])
    /// These partitions go to another member; processed offsets are committed right after this event.
    case revoked([TopicPartition])
    /// These partitions were taken away without notice (session timed out); nothing can be committed.
    case lost([TopicPartition])
}
