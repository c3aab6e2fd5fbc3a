internal import CRDKafka

/// One Admin API request: its options and result queue, and the result event, which it owns and
/// destroys. Blocks while waiting for the result. A request for the controller (topics and their
/// configuration) is refused at once by a cluster that names none (where librdkafka would wait for one
/// until the timeout); groups are described by their coordinators.
struct AdminRequest: ~Copyable {
    enum Operation {
        case createTopics, describeConfigs, describeConsumerGroups

        var native: rd_kafka_admin_op_t {
            switch self {
            case .createTopics: RD_KAFKA_ADMIN_OP_CREATETOPICS
            case .describeConfigs: RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS
            case .describeConsumerGroups: RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS
            }
        }
    }

    /// The result event; valid while the request lives.
    let event: OpaquePointer

    /// Sends the request with `send(client, options, queue)` and waits up to `timeout` (plus a second) for its result.
    /// Throws the request-level error (e.g. `_TIMED_OUT`).
    init(
        _ client: ClientHandle, _ operation: Operation, timeout: Duration,
        send: (OpaquePointer, OpaquePointer, OpaquePointer) -> Void
    ) throws(KafkaAdminError) {
        if operation != .describeConsumerGroups {
            let controller: Int32?
            do {
                controller = try client.controller(timeout: timeout)
            } catch {
                throw .kafka(error)
            }
            guard controller != nil else { throw .noController }
        }
        let options = rd_kafka_AdminOptions_new(client.pointer, operation.native)!
        defer { rd_kafka_AdminOptions_destroy(options) }
        var errorText = [CChar](repeating: 0, count: 512)
        if let error = KafkaError(rd_kafka_AdminOptions_set_request_timeout(options, timeout.timeoutMilliseconds, &errorText, errorText.count))
            ?? (operation == .createTopics
                ? KafkaError(rd_kafka_AdminOptions_set_operation_timeout(options, timeout.timeoutMilliseconds, &errorText, errorText.count))
                : nil) {
            throw .kafka(error)
        }
        let queue = rd_kafka_queue_new(client.pointer)!
        defer { rd_kafka_queue_destroy(queue) }
        send(client.pointer, options, queue)
        guard let event = rd_kafka_queue_poll(queue, timeout.timeoutMilliseconds + 1000) else {
            // The request is still outstanding, and destroying its client can then hang (seen with librdkafka
            // 2.0.2 describing groups on its mock cluster, which has no DescribeGroups): the client is kept.
            client.keepUntilExit()
            throw .kafka(KafkaError(code: KafkaError.Code.timedOut, message: "no answer to the admin request within \(timeout)"))
        }
        if let error = KafkaError(rd_kafka_event_error(event), message: rd_kafka_event_error_string(event).map { String(cString: $0) }) {
            rd_kafka_event_destroy(event)
            throw .kafka(error)
        }
        self.event = event
    }

    deinit { rd_kafka_event_destroy(event) }
}
