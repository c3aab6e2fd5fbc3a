internal import CRDKafka
import Synchronization

/// Matches delivery reports to the messages a producer enqueued: resumes `send` callers, feeds the
/// delivery-report stream, and wakes producers waiting for room in a full local queue.
final class DeliveryTracker: Sendable {
    typealias Outcome = Result<DeliveryReport, KafkaError>

    private struct State {
        var nextID: UInt64 = 1
        var isClosed = false
        /// Delivery reports seen so far; lets a producer that met a full queue wait for the next one.
        var deliveredCount: UInt64 = 0
        var senders: [UInt64: CheckedContinuation<Outcome, Never>] = [:]
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
        var reports: (stream: AsyncStream<DeliveryReport>, continuation: AsyncStream<DeliveryReport>.Continuation)?
    }

    private let state = Mutex(State())
    /// Gets the reports of messages without a `send` caller, instead of the stream.
    private let handler: (@Sendable (DeliveryReport) -> Void)?

    init(handler: (@Sendable (DeliveryReport) -> Void)? = nil) {
        self.handler = handler
    }

    /// Under the lock, assigns the next message ID, registers `sender` (if any) and runs `produce`.
    /// Holding the lock makes `close` a clean cut: after it, nothing is produced. A `ticket` already given up
    /// (`giveUp(_:)`) produces nothing; otherwise it learns the ID.
    /// Returns the ID, or the error `produce` returned (the sender is then not registered).
    func produce(
        sender: CheckedContinuation<Outcome, Never>?, ticket: SendTicket? = nil, _ produce: (UInt64) -> KafkaError?
    ) -> Result<UInt64, KafkaError> {
        state.withLock { state in
            guard !state.isClosed else { return .failure(.state("producer is closed")) }
            let id = state.nextID
            guard ticket?.take(id) ?? true else { return .failure(SendTicket.givenUp) }
            state.nextID += 1
            if let error = produce(id) { return .failure(error) }
            if let sender { state.senders[id] = sender }
            return .success(id)
        }
    }

    /// Stops waiting for the report of the message `ticket` was produced with: its sender, if still waiting, is
    /// resumed with `SendTicket.givenUp` (the message itself may still be delivered). Before the message is
    /// produced, it makes `produce` refuse it.
    func giveUp(_ ticket: SendTicket) {
        guard let id = ticket.giveUp() else { return }
        state.withLock { $0.senders.removeValue(forKey: id) }?.resume(returning: .failure(SendTicket.givenUp))
    }

    /// The number of delivery reports so far; pass it to `waitForDelivery(after:)`.
    var deliveredCount: UInt64 { state.withLock { $0.deliveredCount } }

    /// Returns once a delivery report arrives after the `count`-th (at once if one already has).
    func waitForDelivery(after count: UInt64) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                guard state.deliveredCount == count, !state.isClosed else { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The stream of reports of messages that have no `send` caller waiting, created on first use.
    var reports: AsyncStream<DeliveryReport> {
        state.withLock { state in
            if let reports = state.reports { return reports.stream }
            let reports = AsyncStream.makeStream(of: DeliveryReport.self)
            if state.isClosed { reports.continuation.finish() }
            state.reports = reports
            return reports.stream
        }
    }

    /// Called from the delivery-report callback.
    func deliver(_ report: DeliveryReport) {
        let (sender, waiters, reports) = state.withLock { state in
            state.deliveredCount += 1
            let waiters = state.roomWaiters
            state.roomWaiters = []
            return (state.senders.removeValue(forKey: report.messageID), waiters, state.reports?.continuation)
        }
        if let sender {
            sender.resume(returning: report.error.map { .failure($0) } ?? .success(report))
        } else if let handler {
            handler(report)
        } else {
            reports?.yield(report)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Refuses further messages. Returns false if already closed.
    func close() -> Bool {
        state.withLock { state in
            defer { state.isClosed = true }
            return !state.isClosed
        }
    }

    /// Fails every message still waiting for a report and ends the report stream.
    func failOutstanding(with error: KafkaError) {
        let (senders, waiters, reports) = state.withLock { state in
            defer {
                state.senders = [:]
                state.roomWaiters = []
            }
            return (state.senders.values, state.roomWaiters, state.reports?.continuation)
        }
        for sender in senders { sender.resume(returning: .failure(error)) }
        for waiter in waiters { waiter.resume() }
        reports?.finish()
    }
}

/// What a `send` caller holds to give up waiting for its message's report (its task cancelled).
final class SendTicket: Sendable {
    /// The error a sender given up on gets.
    static let givenUp = KafkaError(code: KafkaError.Code.interrupted, message: "stopped waiting for the delivery report (cancelled)",
                                    isRetriable: true, isFatal: false)

    private let state = Mutex<(id: UInt64?, isGivenUp: Bool)>((nil, false))

    /// Records the message's ID; false (nothing to produce) when already given up.
    func take(_ id: UInt64) -> Bool {
        state.withLock { state in
            guard !state.isGivenUp else { return false }
            state.id = id
            return true
        }
    }

    /// Marks the ticket given up; returns the ID of its message if it was produced.
    func giveUp() -> UInt64? {
        state.withLock { state in
            state.isGivenUp = true
            return state.id
        }
    }
}

extension DeliveryReport {
    /// Reads a delivery-report message (owned by librdkafka).
    init(_ message: UnsafePointer<rd_kafka_message_t>, client: OpaquePointer, topicNames: TopicNames) {
        let raw = message.pointee
        let error = KafkaError(raw.err).map { error in
            error.code == KafkaError.Code.fatal ? (ClientHandle.fatalError(of: client) ?? error) : error
        }
        self.init(
            messageID: UInt64(UInt(bitPattern: raw._private)),
            topic: topicNames.name(of: raw.rkt),
            partition: raw.partition,
            offset: error == nil ? raw.offset : -1,
            error: error)
    }
}
