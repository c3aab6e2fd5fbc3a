import Foundation
import Kafka
import Domain
import EventTransport
import Support
import Synchronization

/// The loop every worker runs: consume an event, decode it, hand it to the step of its route
/// (retrying transient failures), publish the step's events and wait for the broker's
/// acknowledgement, then commit the input. Messages that cannot be processed at all go to the
/// dead-letter topic: undecodable ones, an event of a type not taken on the topic it arrived on
/// (`unexpected_type`), an event of a worker without a valid signature by a role its route takes
/// (`unauthenticated`), one whose message key is not its flow id (`key_mismatch`), one its step refuses
/// as contradicting the step's records (`UntrustedEvent`: `unknown_saga`, `reply_mismatch`), and one a
/// step refused for good (`step_failed`). A failing dependency is waited for, never a reason to dead-letter.
///
/// The input is committed only after the outputs are acknowledged, so a crash anywhere replays the
/// input: steps are idempotent, and the at-least-once chain never loses a step. Each partition is
/// handled in order in its own lane, so a message waiting for a retry holds up only its partition.
public final class Worker: Sendable {
    private let name: String
    private let consumer: KafkaConsumer
    private let producer: KafkaProducer
    private let routing: RoutingTable
    private let signer: EventSigner
    private let verifier: EventVerifier
    private let retry: Backoff
    private let grace: Duration
    private let heartbeat: Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger: Logger
    private let metrics: WorkerMetrics
    private let session: SessionState
    /// The sizes a dead letter is cut to, largest first: what the producer takes, then smaller ones for a
    /// dead-letter topic whose own limit is lower.
    private let deadLetterLimits: [Int]

    /// A worker named `name` (also its consumer group) reading the topics of `routing` and handing
    /// each event to the step of its route, once `verifier` has checked its signature by one of the
    /// route's producers (none for a client's request). It signs every event it publishes with
    /// `signer`. On shutdown, messages being handled get `grace` to finish
    /// before they are abandoned (and redelivered later). A step waiting for a failing dependency publishes its
    /// heartbeat (`EventHandler.heartbeat(of:)`) when it begins to wait and every `heartbeat` after. Every wait
    /// (back-off, grace, the periodic interval) goes through `sleep`.
    public init(name: String, configuration: KafkaConfiguration, routing: RoutingTable, signer: EventSigner,
                verifier: EventVerifier, retry: Backoff = .worker, grace: Duration = .seconds(10), heartbeat: Duration = .seconds(30),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) throws {
        var consumerConfiguration = configuration
        consumerConfiguration.groupID = consumerConfiguration.groupID ?? name
        let session = SessionState()
        self.session = session
        let observer = configuration.rebalanceHandler
        let logger = Logger(component: name)
        consumerConfiguration.rebalanceHandler = { event in
            session.rebalanced(event)
            let names = { (partitions: [TopicPartition]) in partitions.map { "\($0.topic)/\($0.partition)" }.joined(separator: ",") }
            switch event {
            case .assigned(let partitions) where !partitions.isEmpty: logger.info("partitions assigned", ["partitions": names(partitions)])
            case .revoked(let partitions) where !partitions.isEmpty: logger.info("partitions revoked", ["partitions": names(partitions)])
            case .lost(let partitions) where !partitions.isEmpty: logger.info("partitions lost", ["partitions": names(partitions)])
            default:
                break
            }
            observer?(event)
        }
        self.name = name
        self.consumer = try KafkaConsumer(configuration: consumerConfiguration, subscribingTo: routing.topics)
        self.producer = try KafkaProducer(configuration: configuration)
        producer.learnPartitions(of: Topic.all.map(\.name))
        self.routing = routing
        self.signer = signer
        self.verifier = verifier
        self.retry = retry
        self.grace = grace
        self.heartbeat = heartbeat
        self.sleep = sleep
        self.logger = logger
        self.metrics = WorkerMetrics(worker: name)
        // librdkafka's default `message.max.bytes`; a record's framing and the letter's own headers need a margin.
        let producerLimit = configuration.properties["message.max.bytes"].flatMap { Int($0) } ?? 1_000_000
        self.deadLetterLimits = [producerLimit - 4_096, 65_536, 4_096]
    }

    /// Runs until `shutdown` fires (or the consumer fails), then stops fetching, lets each partition
    /// finish the message in hand within the grace period, commits, flushes and leaves the group.
    /// When `gone` has fired by then, the broker is gone with everything it held (a restarted local broker):
    /// the worker abandons the session at once instead — the messages in hand are dropped, nothing is
    /// committed or flushed, the group is not left — since nothing pending there can be delivered or read again.
    /// `periodic`, when given, runs every `interval` beside the consumer (e.g. the stuck-saga sweep); its
    /// transient failures are retried like a step's, and any other failure is logged and tried again at
    /// the next interval, never stopping the worker; `hearing`, when given, is told before each round whether the worker
    /// hears its broker. `outbox`, when given, is relayed every `relayInterval` (or
    /// `interval`, if shorter): its messages published, signed, then removed. `effects`, when given, are performed as
    /// often (`perform(_:)`).
    public func run(until shutdown: ShutdownSignal, abandoningIf gone: ShutdownSignal? = nil, every interval: Duration = .seconds(5),
                    periodic: (@Sendable () throws -> [Event])? = nil, hearing: (@Sendable (Bool) -> Void)? = nil, outbox: (any Outbox)? = nil,
                    effects: SideEffects? = nil, relayInterval: Duration = .seconds(1)) async throws {
        logger.info("started")
        metrics.watch(consumer, producer)
        let lanes = LaneTable()
        let periodicWait = PeriodicWait("the periodic work")
        let relayWait = PeriodicWait("the outbox relay")
        session.began(with: lanes, background: [periodicWait, relayWait])
        // Beside the loop, never waited for: its calls to a broker that is gone take seconds each.
        let measuring = Task { [metrics, routing, consumer] in
            await metrics.measureDeadLetters(of: routing.topics, with: consumer, every: .seconds(30))
        }
        // Beside the loop too: a publication waiting for a broker that is gone holds no stop up, and what it did not
        // finish stays in the outbox for the next session. A fatal producer error stops it; the lanes meet it as well.
        let relaying = outbox.map { outbox in
            Task { [logger] in
                do {
                    try await self.repeatedly(every: min(interval, relayInterval), waiting: relayWait) { try await self.relay(outbox, wait: relayWait) }
                } catch {
                    logger.error("the outbox relay stopped", ["error": "\(error)"])
                }
            }
        }
        // Beside the loop too, and not part of readiness nor of what the worker hears: a mail server that is down holds
        // up its effects alone, never a step, a saga's deadline or the worker's readiness.
        let performing = effects.map { effects in
            Task { [logger] in
                do {
                    try await self.repeatedly(every: min(interval, relayInterval), waiting: PeriodicWait("the side effects")) {
                        try await self.perform(effects)
                    }
                } catch {
                    logger.error("the side effects stopped", ["error": "\(error)"])
                }
            }
        }
        defer {
            measuring.cancel()
            relaying?.cancel()
            performing?.cancel()
            metrics.stopWatching()
            session.ended()
        }
        var failure: (any Error)?
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.dispatch(into: lanes) }
                group.addTask { for await error in lanes.failures { throw error } }
                if let periodic {
                    group.addTask { try await self.repeatedly(every: interval, periodic, hearing: hearing, waiting: periodicWait) }
                }
                group.addTask { await shutdown.wait() }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            failure = error
            logger.error("stopping after a failure", ["error": "\(error)"])
        }
        relaying?.cancel()
        performing?.cancel()
        if gone?.hasFired == true {
            logger.info("abandoning the session: its broker is gone with its data (nothing there to finish, commit or leave)")
            await lanes.stop(grace: .zero, sleep: sleep)
            consumer.abandon()
            await producer.close(flushTimeout: .zero)
        } else {
            logger.info("stopping: finishing the messages in hand, committing, leaving the group")
            await lanes.stop(grace: grace, sleep: sleep)
            await closeConsumer(within: grace)
            await producer.close(flushTimeout: grace)
        }
        logger.info("stopped")
        if let failure { throw failure }
    }

    /// Closes the consumer (committing and leaving the group), waiting at most `limit` (real time): a consumer
    /// whose broker is gone — a restarted local broker, a cluster cut off — may never finish leaving; it is then
    /// left to finish on a thread of its own, and its partitions move after the session timeout.
    private func closeConsumer(within limit: Duration) async {
        if await !consumer.close(within: limit) {
            logger.warning("the consumer did not finish leaving its group in time (is its broker gone?); going on without it",
                           ["limit": "\(limit)"])
        }
    }

    /// Exports every metric series a worker named `name` with `routing`, signing as `role`, can record at zero,
    /// before it runs (so that a fresh worker serves its families before any event).
    public static func declareMetrics(name: String, routing: RoutingTable, role: WorkerRole) {
        WorkerMetrics(worker: name).declare(routing: routing, role: role)
    }

    /// Whether the loop runs, has joined its group, and which work (a partition, the periodic work) waits for a failing dependency.
    public func health() -> WorkerHealth { session.health }

    /// Runs `work` every `interval` and publishes its events, until cancelled or the producer fails for good. Its
    /// waits for a failing dependency are reported in `wait`. Before each round `hearing`, when given, is told whether
    /// the worker hears its broker (`deafness(lastHeard:)`): a saga sweep must not count against a saga the time its
    /// replies cannot reach the worker.
    private func repeatedly(every interval: Duration, _ work: @escaping @Sendable () throws -> [Event],
                            hearing: (@Sendable (Bool) -> Void)?, waiting wait: PeriodicWait) async throws {
        let wasDeaf = Mutex(true)
        let lastHeard = Mutex<ContinuousClock.Instant?>(nil)
        try await repeatedly(every: interval, waiting: wait) {
            if let hearing {
                let reason = await self.deafness(lastHeard: lastHeard)
                hearing(reason == nil)
                let changed = wasDeaf.withLock { was in
                    defer { was = reason != nil }
                    return was != (reason != nil)
                }
                if changed {
                    if let reason {
                        self.logger.warning("the worker does not hear its broker: its sagas' deadlines wait", ["reason": reason])
                    } else {
                        self.logger.info("the worker hears its broker")
                    }
                }
            }
            try await self.publish(try await self.retrying(WorkerMetrics.periodicStep, lane: wait) { try work() })
        }
    }

    /// Why this worker does not hear what its broker holds for it now — it is not a member of its group, its own work
    /// waits for a failing dependency (what queues behind it is not read: a reply behind a mail that waits for its
    /// server), or the broker does not answer a metadata request within 2 s — or nil when it does. The broker is asked
    /// at most once a second (`lastHeard`: when it last answered), however short the interval.
    private func deafness(lastHeard: borrowing Mutex<ContinuousClock.Instant?>) async -> String? {
        guard session.isMember else { return "not a member of its consumer group" }
        if let waiting = session.health.dependencyFailures.first { return "its work waits for a dependency on \(waiting)" }
        guard let topic = routing.topics.first,
              lastHeard.withLock({ $0.map { ContinuousClock.now - $0 >= .seconds(1) } ?? true }) else { return nil }
        do {
            _ = try await offload { [consumer] in try consumer.partitionCount(topic: topic, timeout: .seconds(2)) }
            lastHeard.withLock { $0 = ContinuousClock.now }
            return nil
        } catch {
            return "the broker does not answer: \(error)"
        }
    }

    /// Runs `work` every `interval` until cancelled or the producer fails for good; any other failure is logged and
    /// `work` tried again at the next interval.
    private func repeatedly(every interval: Duration, waiting wait: PeriodicWait, _ work: @escaping @Sendable () async throws -> Void) async throws {
        while !Task.isCancelled {
            try await sleep(interval)
            do {
                try await work()
            } catch let error as KafkaError where error.isFatal {
                throw error
            } catch is CancellationError {
                return
            } catch {
                logger.error("\(wait.name) failed; trying again at the next interval", ["error": "\(error)"])
            }
        }
    }

    /// Publishes what `outbox` holds, oldest first, signed as this worker's role, and removes each batch once the
    /// broker acknowledged it. A crash before the removal publishes the batch again: at least once, never lost.
    private func relay(_ outbox: any Outbox, wait: PeriodicWait) async throws {
        while true {
            let batch = try await retrying(WorkerMetrics.outboxRelay, lane: wait) { try outbox.pending(limit: Self.relayBatch) }
            guard !batch.isEmpty else { return }
            try await publish(batch.map { OutgoingMessage($0, producer: name, signer: signer) }, lane: wait)
            try await retrying(WorkerMetrics.outboxRelay, lane: wait) { try outbox.remove(batch) }
            metrics.relayed(batch)
        }
    }

    /// Performs the side effects `effects` keeps, oldest first, until none is due, removing each once performed
    /// (`SideEffects.performPending`). While nothing can be performed (the mail server down) it waits with capped
    /// back-off for as long as that lasts; an effect that fails stays kept, is logged and counted, and is tried again on
    /// its own back-off: never dropped, never dead-lettered. A removal that fails after a performance is retried
    /// alone, without performing again; a crash in between performs it again.
    private func perform(_ effects: SideEffects) async throws {
        let (logger, metrics) = (logger, metrics)
        var performed = 0
        repeat {
            performed = try await retrying(WorkerMetrics.sideEffects) {
                try effects.performPending(performed: { metrics.performed($0, result: "performed") }, failed: { effect, error in
                    logger.warning("a side effect failed; it stays kept and is tried again later",
                                   ["topic": effect.topic, "type": effect.type, "error": error.message])
                    metrics.performed(effect, result: "failed")
                })
            }
        } while performed > 0
    }

    /// How many outbox messages one round of the relay publishes before removing them.
    private static let relayBatch = 100

    /// Hands each message to its partition's lane, on the consumer's polling thread as batches arrive, starting a
    /// lane for each new partition.
    private func dispatch(into lanes: LaneTable) async throws {
        try await consumer.consume { batch in
            for view in batch {
                let message = view.copy()
                let partition = TopicPartition(topic: message.topic, partition: message.partition)
                lanes.lane(for: partition, consumer: self.consumer) { lane in try await self.work(lane) }.append(message)
            }
        }
    }

    /// Handles a lane's messages in order, committing each once its outputs are acknowledged. A
    /// partition taken away meanwhile (this worker was frozen or cut off past the session timeout) is
    /// not committed: its new owner handles the message again, and this worker goes on.
    private func work(_ lane: PartitionLane) async throws {
        for await message in lane.messages {
            guard !lane.isStopping else { return }
            try await process(message, in: lane)
            try commit(message, in: lane)
            lane.finishedOne()
        }
    }

    /// Commits `message`, unless its partition now belongs to another member (logged, not thrown).
    private func commit(_ message: KafkaMessage, in lane: PartitionLane) throws(KafkaError) {
        do {
            try consumer.commit(message)
        } catch {
            guard error.code == KafkaError.Code.state, !lane.isStopping else { throw error }
            logger.warning("not committed: the partition now belongs to another member, which handles the message again",
                           ["topic": message.topic, "partition": message.partition, "offset": message.offset, "error": error.message])
        }
    }

    private func process(_ message: KafkaMessage, in lane: PartitionLane) async throws {
        let log = logger.with(["topic": message.topic, "partition": message.partition, "offset": message.offset])
        let event: Event
        do {
            event = try EventCodec.decode(message.value)
        } catch {
            return try await deadLetter(message, reason: DeadLetterReason(error.kind), error: error.detail, lane: lane, log: log)
        }
        let flow = log.with(["flow_id": String(event.key.prefix(ContractLimits.idCharacters)), "type": event.type])
        guard let step = routing.step(for: event.kind, on: message.topic) else {
            return try await deadLetter(message, type: event.type, reason: .unexpectedType,
                                        error: "\(event.type) is not taken on \(message.topic)", lane: lane, log: flow)
        }
        let producers = Route(event.kind, on: message.topic).producers
        if !producers.isEmpty {
            do {
                try verifier.verify(message, type: event.type, from: producers)
            } catch {
                return try await deadLetter(message, type: event.type, reason: .unauthenticated, error: error.description,
                                            lane: lane, log: flow)
            }
        }
        guard message.keyString == event.key else {
            let key = message.keyString.map { "\"\($0)\"" } ?? "missing"
            return try await deadLetter(message, type: event.type, reason: .keyMismatch,
                                        error: "message key \(key) is not the flow id \"\(event.key)\"", lane: lane, log: flow)
        }
        do {
            let started = ContinuousClock.now
            let outputs = try await retrying(event.type, lane: lane, log: flow, heartbeat: step.heartbeat(of: event)) {
                try step.handle(event)
            }
            try await publish(outputs, lane: lane)
            metrics.handled(event.type, on: message.topic, in: ContinuousClock.now - started)
            flow.info("handled", ["published": outputs.map(\.type).joined(separator: ",")])
        } catch let error as KafkaError where error.isFatal {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as StoreError {
            metrics.storeFailed(error.kind)
            try await deadLetter(message, type: event.type, reason: .stepFailed, error: error.message, lane: lane, log: flow)
        } catch let error as UntrustedEvent {
            try await deadLetter(message, type: event.type, reason: error.reason, error: error.message, lane: lane, log: flow)
        } catch {
            // Whatever else the message made the step or the producer refuse for good (an output too large).
            try await deadLetter(message, type: event.type, reason: .stepFailed, error: "\(error)", lane: lane, log: flow)
        }
    }

    /// Runs `step`, retrying transient failures (a dependency down, full, read-only or locked) with
    /// capped back-off for as long as they last, while its partition is paused. `lane` (a partition's, or the
    /// periodic work's) reports the wait to readiness. Meanwhile `heartbeat` is published when the wait begins and every
    /// `self.heartbeat` after.
    private func retrying<T: Sendable>(_ what: String, lane: (any DependencyWaiting)? = nil, log: Logger? = nil, heartbeat events: [Event] = [],
                                       _ step: @escaping @Sendable () throws -> T) async throws -> T {
        defer { lane?.setRetrying(false, because: nil) }
        let isTransient = { (error: StoreError) in error.kind == .transient }
        var lastBeat: ContinuousClock.Instant?
        return try await retry.run(limited: false, isTransient: isTransient, willRetry: { error, attempt in
            (log ?? logger).warning("a dependency is failing; waiting and retrying",
                                    ["step": what, "attempt": attempt, "error": error.message])
            metrics.retried(what)
            metrics.storeFailed(error.kind)
            lane?.setRetrying(true, because: error.message)
        }, sleep: { delay in
            if !events.isEmpty, lastBeat.map({ ContinuousClock.now - $0 >= heartbeat }) ?? true {
                lastBeat = .now
                beat(events, log: log ?? logger)
            }
            try await sleep(delay)
        }) { _ in try await offload(step) }
    }

    /// Publishes a waiting step's heartbeat once to every partition of its topic, so that every consumer of the
    /// topic hears it (the messages queued behind the waiting one have no heartbeat of their own), without holding
    /// up the step's retries (a heartbeat that cannot be sent is not retried: the next one follows).
    private func beat(_ events: [Event], log: Logger) {
        let messages = events.map { OutgoingMessage($0, producer: name, signer: signer) }
        let producer = producer
        Task {
            do {
                for message in messages {
                    let partitions = try await offload { try producer.partitionCount(topic: message.topic, timeout: .seconds(5)) }
                    for partition in 0..<partitions {
                        var copy = message
                        copy.partition = Int32(partition)
                        try await producer.send(copy)
                    }
                }
                log.info("waiting step's heartbeat sent", ["published": events.map(\.type).joined(separator: ",")])
            } catch {
                log.warning("waiting step's heartbeat not sent", ["error": "\(error)"])
            }
        }
    }

    /// Publishes `events` in order and waits for every acknowledgement.
    private func publish(_ events: [Event], lane: PartitionLane? = nil) async throws {
        try await publish(events.map { OutgoingMessage($0, producer: name, signer: signer) }, lane: lane)
        metrics.published(events)
    }

    /// Publishes `messages` in order and waits for every acknowledgement. A failed send (broker down
    /// past the delivery timeout) is retried with back-off, for as long as it fails, while the partition
    /// is paused; the input stays uncommitted meanwhile, so nothing is lost whatever happens. A message
    /// too large for the producer or the topic fails the same way every time: it is retried only when
    /// `waitingIfTooLarge` (for an operator to raise the topic's limit).
    private func publish(_ messages: [OutgoingMessage], lane: (any DependencyWaiting)? = nil, waitingIfTooLarge: Bool = false) async throws {
        defer { lane?.setRetrying(false, because: nil) }
        for message in messages {
            let isTransient = { (error: KafkaError) in
                !error.isFatal && (waitingIfTooLarge || error.code != KafkaError.Code.messageTooLarge)
            }
            _ = try await retry.run(limited: false, isTransient: isTransient, willRetry: { error, attempt in
                logger.warning("publish failed, retrying", ["topic": message.topic, "attempt": attempt, "error": error.message])
                lane?.setRetrying(true, because: "publishing to \(message.topic): \(error.message)")
            }, sleep: sleep) { _ in try await producer.send(message) }
        }
    }

    /// Copies `message` to its topic's dead-letter topic, whole if the producer and the topic take it,
    /// else as a bounded prefix; a failure to publish it is retried like any publish (the shortest
    /// prefix even when the topic refuses it as too large), never fatal.
    private func deadLetter(_ message: KafkaMessage, type: String? = nil, reason: DeadLetterReason, error: String,
                            lane: PartitionLane, log: Logger) async throws {
        let letter = DeadLetter(original: message, reason: reason, error: error, worker: name, attempts: 1)
        let topic = Topic.deadLetters(of: message.topic)
        for limit in deadLetterLimits {
            let shortest = limit == deadLetterLimits.last
            do {
                try await publish([letter.message(to: topic, limit: limit)], lane: lane, waitingIfTooLarge: shortest)
                break
            } catch let error as KafkaError where error.code == KafkaError.Code.messageTooLarge && !shortest {
                log.warning("dead letter too large for its topic; sending a shorter prefix", ["limit": limit, "error": error.message])
            }
        }
        log.warning("dead-lettered", ["reason": reason.rawValue, "error": letter.error])
        metrics.deadLettered(type ?? "undecodable", on: message.topic, reason: reason)
        try await answerFailure(of: message, reason: reason, error: letter.error, lane: lane)
    }

    /// Answers a dead-lettered public request whose id can be read with its failure outcome, so that
    /// its client is not left waiting. The step of the topic's requests gives the answer (keeping it,
    /// or the answer it gave already), retried like any step; should it refuse for good, the failure
    /// is published as it is. An event of a type the topic does not take is no request of it.
    private func answerFailure(of message: KafkaMessage, reason: DeadLetterReason, error: String, lane: PartitionLane) async throws {
        guard reason != .unexpectedType, let id = RequestFailure.id(in: message.value, on: message.topic),
              let failure = RequestFailure.outcome(ofRequestOn: message.topic, id: id,
                                                   message: "The request could not be processed (\(reason)): \(error)") else { return }
        let step = RequestFailure.requestKinds(on: message.topic).lazy.compactMap { self.routing.step(for: $0, on: message.topic) }.first
        var answers = [failure]
        if let step {
            do {
                answers = try await retrying(WorkerMetrics.deadLetterAnswer, lane: lane) { try step.answer(deadLettered: failure) }
            } catch let refusal as StoreError {
                logger.error("could not keep the answer to a dead-lettered request", ["flow_id": id, "error": refusal.message])
            }
        }
        try await publish(answers, lane: lane)
    }
}
