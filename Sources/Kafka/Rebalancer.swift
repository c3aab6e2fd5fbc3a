internal import CRDKafka

/// The consumer's rebalance callback: commits what was processed before partitions go away, then
/// applies the new assignment with the protocol the group uses (EAGER or COOPERATIVE).
enum Rebalancer {
    static func handle(
        client: OpaquePointer, event: rd_kafka_resp_err_t,
        partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>,
        configuration: KafkaConfiguration
    ) {
        let isCooperative = rd_kafka_rebalance_protocol(client).map { String(cString: $0) } == "COOPERATIVE"
        let changed = TopicPartitionList.topicPartitions(of: partitions)
        var errors: [KafkaError] = []
        switch event {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            if isCooperative {
                if let error = rd_kafka_incremental_assign(client, partitions) { errors.append(KafkaError(consuming: error)) }
            } else if let error = KafkaError(rd_kafka_assign(client, partitions)) {
                errors.append(error)
            }
            configuration.rebalanceHandler?(.assigned(changed))
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            let isLost = rd_kafka_assignment_lost(client) != 0
            configuration.rebalanceHandler?(isLost ? .lost(changed) : .revoked(changed))
            if !isLost, let error = commitStoredOffsets(client: client) { errors.append(error) }
            if isCooperative {
                if let error = rd_kafka_incremental_unassign(client, partitions) { errors.append(KafkaError(consuming: error)) }
            } else if let error = KafkaError(rd_kafka_assign(client, nil)) {
                errors.append(error)
            }
        default:
            errors.append(KafkaError(event) ?? .state("rebalance failed"))
            _ = rd_kafka_assign(client, nil)
        }
        if let errorHandler = configuration.errorHandler { errors.forEach(errorHandler) }
    }

    /// Commits the offsets stored for processed messages, waiting for the broker; nil if there was nothing to commit.
    static func commitStoredOffsets(client: OpaquePointer) -> KafkaError? {
        let err = rd_kafka_commit(client, nil, 0)
        return err == RD_KAFKA_RESP_ERR__NO_OFFSET ? nil : KafkaError(err)
    }
}
