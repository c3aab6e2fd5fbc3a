internal import CRDKafka

/// The Swift side of librdkafka's callbacks for one client, reached through the configuration's
/// opaque pointer. `ClientHandle` keeps it alive until `rd_kafka_destroy` has returned.
final class ClientCallbacks: Sendable {
    typealias Delivery = @Sendable (_ client: OpaquePointer, _ message: UnsafePointer<rd_kafka_message_t>) -> Void
    typealias Rebalance = @Sendable (
        _ client: OpaquePointer, _ event: rd_kafka_resp_err_t,
        _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>
    ) -> Void

    let errorHandler: (@Sendable (KafkaError) -> Void)?
    let logHandler: (@Sendable (KafkaLogEntry) -> Void)?
    let delivery: Delivery?
    let rebalance: Rebalance?

    init(configuration: KafkaConfiguration, delivery: Delivery? = nil, rebalance: Rebalance? = nil) {
        errorHandler = configuration.errorHandler
        logHandler = configuration.logHandler
        self.delivery = delivery
        self.rebalance = rebalance
    }

    private static func from(_ opaque: UnsafeMutableRawPointer?) -> ClientCallbacks {
        Unmanaged<ClientCallbacks>.fromOpaque(opaque!).takeUnretainedValue()
    }

    /// Registers the C trampolines for the callbacks that are set.
    func install(on configuration: OpaquePointer) {
        rd_kafka_conf_set_error_cb(configuration) { client, err, reason, opaque in
            let callbacks = ClientCallbacks.from(opaque)
            guard let handler = callbacks.errorHandler else { return }
            if err == KafkaError.Code.fatal, let client, let fatal = ClientHandle.fatalError(of: client) {
                handler(fatal)
            } else {
                handler(KafkaError(code: err, message: reason.map { String(cString: $0) }))
            }
        }
        if logHandler != nil {
            rd_kafka_conf_set_log_cb(configuration) { client, level, facility, text in
                guard let client, let opaque = rd_kafka_opaque(client) else { return }
                ClientCallbacks.from(opaque).logHandler?(KafkaLogEntry(
                    level: level,
                    facility: facility.map { String(cString: $0) } ?? "",
                    message: text.map { String(cString: $0) } ?? ""))
            }
        }
        if delivery != nil {
            rd_kafka_conf_set_dr_msg_cb(configuration) { client, message, opaque in
                guard let client, let message else { return }
                ClientCallbacks.from(opaque).delivery?(client, message)
            }
        }
        if rebalance != nil {
            rd_kafka_conf_set_rebalance_cb(configuration) { client, event, partitions, opaque in
                guard let client, let partitions else { return }
                ClientCallbacks.from(opaque).rebalance?(client, event, partitions)
            }
            rd_kafka_conf_set_offset_commit_cb(configuration) { _, err, _, opaque in
                // Commits of nothing new answer _NO_OFFSET; that is not a failure.
                guard err != RD_KAFKA_RESP_ERR_NO_ERROR, err != RD_KAFKA_RESP_ERR__NO_OFFSET,
                      let error = KafkaError(err) else { return }
                ClientCallbacks.from(opaque).errorHandler?(error)
            }
        }
    }
}
