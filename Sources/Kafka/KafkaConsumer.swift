internal import CRDKafka
import Dispatch
import Synchronization

/// Reads messages as an `AsyncSequence`, either as a member of a consumer group or from an explicit
/// assignment.
///
/// Offsets are committed only for messages passed to `commit` (at-least-once): a consumer that stops
/// before committing gets the message again. Blocking librdkafka calls run on the consumer's own
/// dispatch queue, never on Swift's cooperative pool.
public final class KafkaConsumer: Sendable {
    private let client: ClientHandle
    /// Woken to interrupt a waiting `rd_kafka_consumer_poll`.
    private let queue: QueueHandle
    private let errorHandler: (@Sendable (KafkaError) -> Void)?
    /// For a cooperative-sticky group member: whether it has been assigned partitions yet.
    private let firstAssignment: FirstAssignment?
    private let isClosed = Atomic(false)
    /// Left once `rd_kafka_consumer_close` has returned.
    private let closeCompletion = DispatchGroup()
    /// Serializes `rd_kafka_consumer_poll` and `rd_kafka_consumer_close`, which may block.
    private let pollQueue = DispatchQueue(label: "kafka-consumer-poll")
    /// The messages of the batch being taken, and the names of their topics; used on the poll queue only.
    nonisolated(unsafe) private let batchBuffer = UnsafeMutableBufferPointer<UnsafeMutablePointer<rd_kafka_message_t>>
        .allocate(capacity: KafkaConsumer.batchLimit)
    private let topicNames = TopicNames()
    private static let pollQueueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// Joins `configuration.groupID` and reads `topics`, sharing their partitions with the other members.
    public convenience init(configuration: KafkaConfiguration, subscribingTo topics: [String]) throws(KafkaError) {
        guard configuration.groupID != nil else {
            throw KafkaError(code: KafkaError.Code.invalidArgument, message: "a subscribing consumer needs a groupID")
        }
        try self.init(configuration: configuration, usesGroup: true)
        let list = TopicPartitionList(capacity: topics.count)
        for topic in topics { list.add(topic: topic, partition: RD_KAFKA_PARTITION_UA) }
        try KafkaError.check(rd_kafka_subscribe(client.pointer, list.pointer))
    }

    /// Reads exactly the given partitions from the given offsets, without joining a group.
    ///
    /// `groupID`, if set, is only where `commit` stores offsets and `.stored` reads them; without it a
    /// private one is made up (librdkafka's consumer API needs one, but no group is joined).
    public convenience init(configuration: KafkaConfiguration, assignment: [TopicPartitionOffset]) throws(KafkaError) {
        var configuration = configuration
        if configuration.groupID == nil {
            configuration.groupID = "\(configuration.clientID)-unjoined-\(UInt64.random(in: 0...UInt64.max))"
        }
        try self.init(configuration: configuration, usesGroup: false)
        try assign(assignment)
    }

    private init(configuration: KafkaConfiguration, usesGroup: Bool) throws(KafkaError) {
        let firstAssignment = usesGroup && configuration.assignmentStrategy == .cooperativeSticky ? FirstAssignment() : nil
        let rebalance: ClientCallbacks.Rebalance = { client, event, partitions in
            if event == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS { firstAssignment?.record() }
            Rebalancer.handle(client: client, event: event, partitions: partitions, configuration: configuration)
        }
        self.firstAssignment = firstAssignment
        let callbacks = ClientCallbacks(configuration: configuration, rebalance: usesGroup ? rebalance : nil)
        client = try ClientHandle(
            type: RD_KAFKA_CONSUMER, properties: configuration.librdkafkaProperties(for: .consumer),
            callbacks: callbacks)
        errorHandler = configuration.errorHandler
        queue = .consumer(of: client)
        // Serve errors, commit results and rebalances from the consumer queue, in `rd_kafka_consumer_poll`.
        rd_kafka_poll_set_consumer(client.pointer)
        pollQueue.setSpecific(key: Self.pollQueueKey, value: ObjectIdentifier(pollQueue))
        closeCompletion.enter()
    }

    deinit {
        close()
        batchBuffer.deallocate()
    }

    /// The consumed messages. Throws only fatal errors (others go to `errorHandler`);
    /// ends after `close()` or when the iterating task is cancelled.
    public var messages: KafkaMessageSequence { KafkaMessageSequence(consumer: self) }

    /// Marks `message` as processed (stores offset + 1) and commits asynchronously.
    /// Throws `_STATE` if its partition is no longer assigned to this consumer (after a rebalance):
    /// its new owner will then get the message again.
    public func commit(_ message: KafkaMessage) throws(KafkaError) {
        try markProcessed(message)
        try KafkaError.check(rd_kafka_commit(client.pointer, nil, 1))
    }

    /// Marks `message` as processed without committing yet: the next `commit`, `commitSync`,
    /// rebalance or `close` commits it (or librdkafka's timer, if `enable.auto.commit` is set).
    public func markProcessed(_ message: KafkaMessage) throws(KafkaError) {
        try checkOpen()
        let list = TopicPartitionList(capacity: 1)
        list.add(topic: message.topic, partition: message.partition, offset: message.offset + 1)
        try KafkaError.check(rd_kafka_offsets_store(client.pointer, list.pointer))
        if let error = list.firstError { throw error }
    }

    /// Marks everything before `offsets` (each partition's next offset to read) as processed and commits asynchronously:
    /// one request for many messages. Throws `_STATE` for a partition no longer assigned to this consumer (the others
    /// are still committed).
    public func commit(nextOffsets offsets: [TopicPartition: Int64]) throws(KafkaError) {
        try checkOpen()
        guard !offsets.isEmpty else { return }
        let list = TopicPartitionList(capacity: offsets.count)
        for (partition, offset) in offsets { list.add(topic: partition.topic, partition: partition.partition, offset: offset) }
        if let refused = KafkaError(rd_kafka_offsets_store(client.pointer, list.pointer)) { throw list.firstError ?? refused }
        try KafkaError.check(rd_kafka_commit(client.pointer, nil, 1))
    }

    /// Commits every processed offset now, waiting for the broker. Blocks the caller.
    public func commitSync() throws(KafkaError) {
        try checkOpen()
        if let error = Rebalancer.commitStoredOffsets(client: client.pointer) { throw error }
    }

    /// Replaces the partitions read by a consumer created with an assignment.
    public func assign(_ assignment: [TopicPartitionOffset]) throws(KafkaError) {
        try checkOpen()
        let list = TopicPartitionList(capacity: assignment.count)
        for item in assignment { list.add(topic: item.topic, partition: item.partition, offset: item.offset.rawValue) }
        try KafkaError.check(rd_kafka_assign(client.pointer, list.pointer))
    }

    /// Stops fetching from a partition (it stays assigned) until `resume`.
    public func pause(topic: String, partition: Int32) throws(KafkaError) {
        try checkOpen()
        let list = TopicPartitionList(capacity: 1)
        list.add(topic: topic, partition: partition)
        try KafkaError.check(rd_kafka_pause_partitions(client.pointer, list.pointer))
        if let error = list.firstError { throw error }
    }

    public func resume(topic: String, partition: Int32) throws(KafkaError) {
        try checkOpen()
        let list = TopicPartitionList(capacity: 1)
        list.add(topic: topic, partition: partition)
        try KafkaError.check(rd_kafka_resume_partitions(client.pointer, list.pointer))
        if let error = list.firstError { throw error }
    }

    /// Commits processed offsets and leaves the group at once (no session timeout for the others
    /// to wait out); then `messages` ends. Blocks until done (bounded by the socket timeout), also
    /// when another thread is already closing; idempotent.
    public func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else {
            closeCompletion.wait()
            return
        }
        queue.wakeUp()
        onPollQueue { _ = rd_kafka_consumer_close(client.pointer) }
        if let firstAssignment, !firstAssignment.hasHappened { client.keepUntilExit() }
        closeCompletion.leave()
    }

    /// Gives the consumer up without closing it, for a broker that is gone with its data (a restarted local broker):
    /// nothing is committed, the group is not left, and nothing waits for the broker; then `messages` ends. The
    /// handle is destroyed without a consumer close (`RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE`) on a thread of its own
    /// once released. What was processed and not committed is read again by whoever reads the partitions next.
    /// Returns at once; does nothing once `close()` has begun.
    public func abandon() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.wakeUp()
        // Destroying a member never assigned aborts the process (see `FirstAssignment`): kept until exit instead.
        if let firstAssignment, !firstAssignment.hasHappened { client.keepUntilExit() } else { client.abandonOnRelease() }
        closeCompletion.leave()
    }

    /// The oldest and next offsets of a partition, asked of its leader. Blocks for at most `timeout`.
    public func watermarks(topic: String, partition: Int32, timeout: Duration) throws(KafkaError) -> (low: Int64, high: Int64) {
        try client.watermarks(topic: topic, partition: partition, timeout: timeout)
    }

    /// Asks the cluster for the partition count of `topic`; a quick connectivity check.
    /// Throws `_TRANSPORT` or `_TIMED_OUT` if no broker answers within `timeout`. Blocks the caller.
    public func partitionCount(topic: String, timeout: Duration) throws(KafkaError) -> Int {
        try client.partitionCount(topic: topic, timeout: timeout)
    }

    /// Messages taken per trip of the polling thread: what has already arrived, up to this many.
    static let batchLimit = 64

    /// Whether `close()` has begun; buffered messages are not handed out after it.
    var isClosing: Bool { isClosed.load(ordering: .acquiring) }
    var clientPointer: OpaquePointer { client.pointer }

    /// Hands the messages to `handler` on the consumer's polling thread, a batch per trip (the first message that
    /// arrives, plus any already waiting behind it), without copying them and without waking another thread;
    /// returns once the consumer is closed or the calling task cancelled, and throws a fatal error. Other errors go
    /// to the configuration's `errorHandler`. `handler` must not block for long: rebalances and commit results are
    /// served on the same thread, between batches. `afterEachPoll`, when given, runs on that thread after each trip,
    /// with messages or not (at least every half second): work that must go on while no message comes.
    public func consume(batches handler: @escaping @Sendable (KafkaMessageBatch) -> Void,
                        afterEachPoll: (@Sendable () -> Void)? = nil) async throws(KafkaError) {
        let interrupt = Interrupt()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pollQueue.async {
                    var result: Result<Void, KafkaError> = .success(())
                    while !self.isClosing, !interrupt.isSet.load(ordering: .acquiring) {
                        if case .failure(let error) = self.pollBatch(until: interrupt, handler) {
                            result = .failure(error)
                            break
                        }
                        afterEachPoll?()
                    }
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            interrupt.isSet.store(true, ordering: .releasing)
            queue.wakeUp()
        }
        try result.get()
    }

    /// Waits on the poll queue for the next messages, copied; empty once closed or when the calling task is cancelled.
    func nextMessages() async throws(KafkaError) -> [KafkaMessage] {
        let interrupt = Interrupt()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                pollQueue.async {
                    var messages: [KafkaMessage] = []
                    var result: Result<Void, KafkaError> = .success(())
                    while messages.isEmpty, !self.isClosing, !interrupt.isSet.load(ordering: .acquiring) {
                        result = self.pollBatch(until: interrupt) { batch in messages = batch.map { $0.copy() } }
                        if case .failure = result { break }
                    }
                    continuation.resume(returning: result.map { self.isClosing ? [] : messages })
                }
            }
        } onCancel: {
            interrupt.isSet.store(true, ordering: .releasing)
            queue.wakeUp()
        }
        return try result.get()
    }

    /// Runs on the poll queue. The first `rd_kafka_consumer_poll` sleeps until a message, an event, a yield (from
    /// `close` or cancellation) or its timeout; then it takes what is already there, and lends the batch (if any
    /// message came) to `body` before destroying it.
    private func pollBatch(until interrupt: Interrupt, _ body: (KafkaMessageBatch) -> Void) -> Result<Void, KafkaError> {
        let buffer = batchBuffer
        var count = 0
        defer { for index in 0..<count { rd_kafka_message_destroy(buffer[index]) } }
        var first = true
        while count < Self.batchLimit, !isClosing, !interrupt.isSet.load(ordering: .acquiring) {
            guard let message = rd_kafka_consumer_poll(client.pointer, first ? 500 : 0) else {
                if first { return .success(()) } else { break }
            }
            first = false
            let err = message.pointee.err
            if err == RD_KAFKA_RESP_ERR_NO_ERROR {
                buffer[count] = message
                count += 1
                continue
            }
            defer { rd_kafka_message_destroy(message) }
            if err != RD_KAFKA_RESP_ERR__PARTITION_EOF {
                let text = String(cString: rd_kafka_message_errstr(message))
                let error = client.resolvingFatal(KafkaError(err, message: text)!)
                if error.isFatal { return .failure(error) }
                errorHandler?(error)
            }
        }
        if count > 0, !isClosing {
            body(KafkaMessageBatch(UnsafeBufferPointer(start: buffer.baseAddress, count: count), topicNames: topicNames))
        }
        return .success(())
    }

    private func checkOpen() throws(KafkaError) {
        if isClosed.load(ordering: .acquiring) { throw .state("consumer is closed") }
    }

    /// Runs `body` on the poll queue and waits, or runs it directly if already there.
    private func onPollQueue(_ body: () -> Void) {
        if DispatchQueue.getSpecific(key: Self.pollQueueKey) == ObjectIdentifier(pollQueue) {
            body()
        } else {
            pollQueue.sync(execute: body)
        }
    }
}

/// A flag set when the task waiting for a message is cancelled.
private final class Interrupt: Sendable {
    let isSet = Atomic(false)
}
