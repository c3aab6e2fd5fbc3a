import Domain
import Kafka
import Support

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

    private static let announcements = registry.counter(
        "registrar_announcements_total", "Messages published from the worker's store outbox (account.events), by type",
        labels: ["worker", "type"])

    private static let effects = registry.counter(
        "registrar_side_effects_total",
        "Side effects performed from the worker's side-effect outbox (the welcome mail), by topic, type and result (performed; failed: kept, tried again later)",
        labels: ["worker", "topic", "type", "result"])

    private static let storeErrors = registry.counter(
        "registrar_store_errors_total", "Store failures met by steps, by kind (transient: waited out; permanent: the step failed)",
        labels: ["worker", "kind"])
    private static let lag = registry.gauge(
        "registrar_consumer_lag_messages", "Messages not yet read on each partition a worker holds",
        labels: ["worker", "topic", "partition"])
    private static let producerQueue = registry.gauge(
        "registrar_producer_queue_messages", "Messages produced and not yet acknowledged by the broker", labels: ["worker"])
    private static let deadLetterDepth = registry.gauge(
        "registrar_dead_letter_topic_messages", "Messages each dead-letter topic of a worker's input topics holds (its end less its start)",
        labels: ["worker", "topic"])

    let worker: String

    /// The retry labels besides the route types: the periodic work, the answer to a dead-lettered request, the outbox relay.
    static let periodicStep = "periodic"
    static let deadLetterAnswer = "answer to a dead letter"
    static let outboxRelay = "outbox relay"
    static let sideEffects = "side effects"

    /// Exports every series the worker can record at zero, so that a fresh worker serves its families before any
    /// event: each route's messages and retries, each input topic's durations and dead letters by reason, the
    /// outcomes its `role` publishes by reason (every reason code for a refusal), store errors, its producer queue.
    func declare(routing: RoutingTable, role: WorkerRole) {
        for route in routing.routes {
            for result in ["handled", "dead_lettered"] { Self.messages.declare(worker, route.topic, route.type.rawValue, result) }
            Self.retries.declare(worker, route.type.rawValue)
        }
        for topic in routing.topics {
            Self.messages.declare(worker, topic, "undecodable", "dead_lettered")
            Self.handling.declare(worker, topic)
            for reason in DeadLetterReason.all { Self.deadLetters.declare(worker, topic, reason.rawValue) }
        }
        for step in [Self.periodicStep, Self.deadLetterAnswer, Self.outboxRelay, Self.sideEffects] { Self.retries.declare(worker, step) }
        for announcements in Announcements.all {
            for (kind, producer) in announcements.producers where producer == role { Self.announcements.declare(worker, kind.rawValue) }
        }
        for kind in Event.Kind.allCases where kind.producers.contains(role) && Topic.outcomes.contains(kind.topic) {
            for reason in Event.Kind.refusals.contains(kind) ? ReasonCode.allCases.map(\.rawValue) : ["none"] {
                Self.outcomes.declare(worker, kind.rawValue, reason)
            }
        }
        for kind in ["transient", "permanent"] { Self.storeErrors.declare(worker, kind) }
        Self.producerQueue.set(0, worker)
        _ = (Self.lag, Self.deadLetterDepth)  // their series come with the assignment and the first reading
    }

    /// Reads how many letters each dead-letter topic of `topics` holds, with `consumer` (no group involved),
    /// every `interval` until cancelled; a topic that cannot be read keeps its last figure until it can.
    func measureDeadLetters(of topics: [String], with consumer: KafkaConsumer, every interval: Duration) async {
        while !Task.isCancelled {
            for topic in topics.map(Topic.deadLetters(of:)) where !Task.isCancelled {
                if let depth = try? await depth(of: topic, with: consumer) { Self.deadLetterDepth.set(Double(depth), worker, topic) }
            }
            try? await Task.sleep(for: interval)
        }
    }

    /// The messages `topic` holds, asked a partition at a time (each call bounded), until the task is cancelled.
    private func depth(of topic: String, with consumer: KafkaConsumer) async throws -> Int64 {
        let partitions = try await offload { try consumer.partitionCount(topic: topic, timeout: .seconds(2)) }
        var total: Int64 = 0
        for partition in 0..<Int32(partitions) {
            try Task.checkCancellation()
            let marks = try await offload { try consumer.watermarks(topic: topic, partition: partition, timeout: .seconds(2)) }
            total += max(0, marks.high - marks.low)
        }
        return total
    }

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

    /// Counts the messages relayed from the outbox.
    func relayed(_ messages: [OutboxMessage]) {
        for message in messages { Self.announcements.increment(worker, message.type) }
    }

    /// Counts a side effect performed, or refused for good.
    func performed(_ effect: OutboxMessage, result: String) {
        Self.effects.increment(worker, effect.topic, effect.type, result)
    }

    /// Counts the outcomes among `events` (those on a public outcome topic).
    func published(_ events: [Event]) {
        for event in events where Topic.outcomes.contains(event.topic) {
            Self.outcomes.increment(worker, event.type, event.refusalReason?.rawValue ?? "none")
        }
    }
}
