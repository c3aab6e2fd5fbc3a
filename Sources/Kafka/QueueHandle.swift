internal import CRDKafka

/// Owns a reference to one of a client's event queues (`rd_kafka_queue_t`), used to wake a thread
/// blocked polling it.
///
/// `@unchecked Sendable`: librdkafka queues are thread-safe, the pointer never changes, and it is
/// destroyed only in `deinit`; the client it belongs to is kept alive until then.
final class QueueHandle: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let client: ClientHandle

    /// The client's main queue (delivery reports, errors, logs).
    static func main(of client: ClientHandle) -> QueueHandle {
        QueueHandle(rd_kafka_queue_get_main(client.pointer), client: client)
    }

    /// The consumer queue (messages, rebalances, and, once redirected, the main queue's events).
    static func consumer(of client: ClientHandle) -> QueueHandle {
        QueueHandle(rd_kafka_queue_get_consumer(client.pointer), client: client)
    }

    private init(_ pointer: OpaquePointer!, client: ClientHandle) {
        self.pointer = pointer
        self.client = client
    }

    deinit { rd_kafka_queue_destroy(pointer) }

    /// Makes a current or the next blocking poll of this queue return at once.
    /// (`rd_kafka_yield` only works from inside a callback on the polling thread.)
    func wakeUp() {
        rd_kafka_queue_yield(pointer)
    }
}
