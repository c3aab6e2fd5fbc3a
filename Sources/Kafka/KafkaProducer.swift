internal import CRDKafka
import Support
import Dispatch
import Foundation
import Glibc

/// Produces messages; idempotent (exactly once, in order per partition) unless configured otherwise.
///
/// Delivery reports are served on a dedicated thread. When librdkafka's local queue is full,
/// `send` and `enqueue` wait for deliveries to make room: nothing is dropped, nothing spins.
public final class KafkaProducer: Sendable {
    private let configuration: KafkaConfiguration
    private let client: ClientHandle
    private let tracker: DeliveryTracker
    /// Serves the delivery reports, unless the caller does (`servingReports: false`).
    private let poller: PollThread?

    /// Creates the producer; invalid properties throw with librdkafka's explanation. `deliveryHandler`, when given,
    /// gets the reports of messages given to `enqueue` or `produce(copying:to:)` on the thread serving them, as they
    /// arrive, instead of `deliveryReports`; it must not block. The producer serves its reports on a thread of its
    /// own unless `servingReports` is false: then the caller serves them with `serveDeliveryReports()` (a relay's
    /// polling thread, between batches: no thread is woken per report), and `send` must not be used.
    public init(configuration: KafkaConfiguration, deliveryHandler: (@Sendable (DeliveryReport) -> Void)? = nil,
                servingReports: Bool = true) throws(KafkaError) {
        let tracker = DeliveryTracker(handler: deliveryHandler)
        let topicNames = TopicNames()
        let callbacks = ClientCallbacks(configuration: configuration) { client, message in
            tracker.deliver(DeliveryReport(message, client: client, topicNames: topicNames))
        }
        self.configuration = configuration
        self.tracker = tracker
        self.client = try ClientHandle(
            type: RD_KAFKA_PRODUCER, properties: configuration.librdkafkaProperties(for: .producer),
            callbacks: callbacks)
        self.poller = servingReports ? PollThread(client: client, name: "kafka-producer-poll") : nil
    }

    deinit {
        if tracker.close() { shutDown() }
    }

    /// Learns, on a thread of its own, where the partitions of those of `topics` the cluster has are (creating none).
    /// librdkafka 2.0.2 holds the first message to a topic this producer has not seen until its next topic scan, up to a
    /// second later (each hop of a worker's first request after its start took a second); a message to a known topic
    /// goes at once. Best effort: a broker that does not answer within `timeout` leaves them to that scan. `learned`,
    /// when given, is called on that thread once the answers came or the timeout passed.
    public func learnPartitions(of topics: [String], timeout: Duration = .seconds(30), learned: (@Sendable () -> Void)? = nil) {
        Thread.detachNewThread { [client] in
            try? client.loadMetadata(of: topics, timeout: timeout)
            learned?()
        }
    }

    /// Messages waiting in librdkafka's queues: produced and not yet acknowledged (and requests in flight).
    public var queueLength: Int { Int(rd_kafka_outq_len(client.pointer)) }

    /// Produces `message` and returns once the broker has acknowledged it.
    /// Throws the delivery error (e.g. `_MSG_TIMED_OUT` after `deliveryTimeout` without a broker). Cancelled, it stops
    /// waiting at once and throws `_INTR` (`KafkaError.Code.interrupted`): the message may still be delivered.
    @discardableResult
    public func send(_ message: OutgoingMessage) async throws(KafkaError) -> DeliveryReport {
        while true {
            let delivered = tracker.deliveredCount
            let ticket = SendTicket()
            let outcome = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    if case .failure(let error) = tracker.produce(sender: continuation, ticket: ticket, { produce(message, id: $0) }) {
                        continuation.resume(returning: .failure(error))
                    }
                }
            } onCancel: {
                tracker.giveUp(ticket)
            }
            switch outcome {
            case .success(let report):
                return report
            case .failure(let error) where error.code == KafkaError.Code.queueFull:
                await tracker.waitForDelivery(after: delivered)
            case .failure(let error):
                throw client.resolvingFatal(error)
            }
        }
    }

    /// Hands `message` to librdkafka and returns its ID without waiting for the broker;
    /// its report arrives on `deliveryReports`. Waits while the local queue is full.
    @discardableResult
    public func enqueue(_ message: OutgoingMessage) async throws(KafkaError) -> UInt64 {
        while true {
            let delivered = tracker.deliveredCount
            switch tracker.produce(sender: nil, { produce(message, id: $0) }) {
            case .success(let id):
                return id
            case .failure(let error) where error.code == KafkaError.Code.queueFull:
                await tracker.waitForDelivery(after: delivered)
            case .failure(let error):
                throw client.resolvingFatal(error)
            }
        }
    }

    /// Produces a copy of a consumed message (key, value, headers) to `topic` and returns its ID without waiting for
    /// the broker, like `enqueue`; made for a `KafkaConsumer.consume(batches:)` handler: nothing is copied on the
    /// way to librdkafka, and no task is woken. While librdkafka's local queue is full, it retries every millisecond.
    @discardableResult
    public func produce(copying message: KafkaMessageView, to topic: String) throws(KafkaError) -> UInt64 {
        while true {
            switch produceOnce(copying: message, to: topic) {
            case .success(let id):
                return id
            case .failure(let error) where error.code == KafkaError.Code.queueFull:
                usleep(1_000)
            case .failure(let error):
                throw client.resolvingFatal(error)
            }
        }
    }

    private func produceOnce(copying message: KafkaMessageView, to topic: String) -> Result<UInt64, KafkaError> {
        tracker.produce(sender: nil) { id in
            var headers: OpaquePointer?
            if rd_kafka_message_headers(message.pointer, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR, let original = headers {
                headers = rd_kafka_headers_copy(original)
            } else {
                headers = nil
            }
            let error = ProduceArguments.withValues(copying: message, to: topic, id: id, flags: RD_KAFKA_MSG_F_COPY,
                                                    headers: headers) { values in
                rd_kafka_produceva(client.pointer, values.baseAddress, values.count).map(KafkaError.init(consuming:))
            }
            // The headers are the message's once produced; not when producing failed.
            if error != nil, let headers { rd_kafka_headers_destroy(headers) }
            return error
        }
    }

    /// Serves the delivery reports that have arrived (to `deliveryHandler`, `deliveryReports` or `send`), without
    /// waiting; for a producer created with `servingReports: false`.
    public func serveDeliveryReports() {
        rd_kafka_poll(client.pointer, 0)
    }

    /// Reports of messages given to `enqueue` after the first access to this property.
    /// One consumer only; ends when the producer closes.
    public var deliveryReports: AsyncStream<DeliveryReport> { tracker.reports }

    /// Waits until every message so far is delivered or failed; throws `_TIMED_OUT` after `timeout`.
    public func flush(timeout: Duration) async throws(KafkaError) {
        let client = self.client
        let result = await withCheckedContinuation { continuation in
            // rd_kafka_flush blocks: keep it off Swift's cooperative pool.
            DispatchQueue.global().async {
                continuation.resume(returning: rd_kafka_flush(client.pointer, timeout.timeoutMilliseconds))
            }
        }
        try KafkaError.check(result)
    }

    /// Flushes (for at most `flushTimeout`, by default `deliveryTimeout`), fails what is left, and
    /// stops serving callbacks. Further sends throw. The connections close when the producer is released.
    public func close(flushTimeout: Duration? = nil) async {
        guard tracker.close() else { return }
        try? await flush(timeout: flushTimeout ?? configuration.deliveryTimeout)
        shutDown()
    }

    /// Asks the cluster for the partition count of `topic`; a quick connectivity check.
    /// Throws `_TRANSPORT` or `_TIMED_OUT` if no broker answers within `timeout`. Blocks the caller.
    public func partitionCount(topic: String, timeout: Duration) throws(KafkaError) -> Int {
        try client.partitionCount(topic: topic, timeout: timeout)
    }

    private func shutDown() {
        rd_kafka_purge(client.pointer, Int32(RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT))
        poller?.stop()
        rd_kafka_poll(client.pointer, 0)  // serves the purged messages' reports
        tracker.failOutstanding(with: KafkaError(code: KafkaError.Code.destroyed, message: "producer closed"))
    }

    /// Calls `rd_kafka_produceva` (the array form of the variadic `rd_kafka_producev`).
    private func produce(_ message: OutgoingMessage, id: UInt64) -> KafkaError? {
        ProduceArguments.withValues(message, id: id) { values in
            rd_kafka_produceva(client.pointer, values.baseAddress, values.count).map(KafkaError.init(consuming:))
        }
    }
}
