import Domain
import Kafka
import Metrics

/// What the worker loop counts, in `MetricsRegistry.shared`, each series labelled with the worker's name.
struct WorkerMetrics: Sendable {
    private static let registry = MetricsRegistry.shared
    private static let messages = registry.counter(
        "registrar_messages_total", "Messages taken off the input topics, by topic, event type and result (handled, dead_lettered)",
        labels: ["worker", "topic", "type", "result"])
    private static let handling = registry.histogram(
        "registrar_message_handling_duration_seconds", "From a message's arrival at its step to its outputs' acknowledgement",
        labels: ["worker", "topic"])
    private static let retries = registry.counter(
        "registrar_retries_total", "Attempts retried because a dependency failed, by step", labels: ["worker", "step"])
    private static let deadLetters = registry.counter(
        "registrar_dead_letters_total", "Messages dead-lettered, by input topic and reason", labels: ["worker", "topic", "reason"])
    private static let outcomes = registry.counter(
        "registrar_outcomes_total", "Outcomes published, by type and reason code (none for a success)", labels: ["worker", "type", "reason"])

    private static let storeErrors = registry.counter(
        "registrar_store_errors_total", "Store failures met by steps, by kind (transient: waited out; permanent: the step failed)",
        labels: ["worker", "kind"])
    private static let lag = registry.gauge(
        "registrar_consumer_lag_messages", "Messages not yet read on each partition a worker holds",
        labels: ["worker", "topic", "partition"])
    private static let producerQueue = registry.gauge(
        "registrar_producer_queue_messages", "Messages produced and not yet acknowledged by the broker", labels: ["worker"])

    let worker: String

    /// Reads `consumer`'s lag and `producer`'s queue at each scrape, until `stopWatching`.
    func watch(_ consumer: KafkaConsumer, _ producer: KafkaProducer) {
        let worker = worker
        Self.lag.collect(from: worker) {
            Dictionary(uniqueKeysWithValues: consumer.lag().map { ([worker, $0.key.topic, String($0.key.partition)], Double($0.value)) })
        }
        Self.producerQueue.collect(from: worker) { [[worker]: Double(producer.queueLength)] }
    }

    func stopWatching() {
        Self.lag.stopCollecting(from: worker)
        Self.producerQueue.stopCollecting(from: worker)
    }

    func handled(_ type: String, on topic: String, in duration: Duration) {
        Self.messages.increment(worker, topic, type, "handled")
        Self.handling.observe(duration.seconds, worker, topic)
    }

    func deadLettered(_ type: String, on topic: String, reason: DeadLetterReason) {
        Self.messages.increment(worker, topic, type, "dead_lettered")
        Self.deadLetters.increment(worker, topic, reason.rawValue)
    }

    func retried(_ step: String) { Self.retries.increment(worker, step) }

    func storeFailed(_ kind: StoreError.Kind) {
        Self.storeErrors.increment(worker, kind == .transient ? "transient" : "permanent")
    }

    /// Counts the outcomes among `events` (those on a public outcome topic).
    func published(_ events: [Event]) {
        for event in events where Topic.outcomes.contains(event.topic) {
            Self.outcomes.increment(worker, event.type, event.refusalReason?.rawValue ?? "none")
        }
    }
}
