import Crypto
import Domain
import EventTransport
import Foundation
import Kafka

/// A client of Registrar's public topics, for the CLI, the gateway, the demo, the chaos run and the tests:
/// publishes requests, awaits each one's outcome by its id, seals secrets to the account worker's
/// public key, and opens what outcomes seal to each request's own reply key. It takes only genuine
/// outcomes: signed by the worker role that produces them, with a key `verifier` trusts; anything else
/// on the outcome topics is ignored and the wait goes on. One producer and one outcome listener serve
/// every request it makes.
public final class RegistrarClient: RequestSealing {
    public let kafka: KafkaConfiguration
    public let publicKey: SealingPublicKey
    /// What each request's reply key pair is derived from: outcomes seal their details to the pair of their request.
    public let replySecret: ReplySecret
    /// The `producer` header of every message it publishes.
    public let name: String
    private let producer: KafkaProducer
    private let listener: OutcomeListener

    /// How long `close` waits for the listener and for what is still being published, at most each.
    public static let closeLimit = Duration.seconds(5)

    /// A client of the broker of `kafka`, listening to the outcome topics from now on and taking only outcomes
    /// `verifier` finds signed by their producing role; `connectTimeout` bounds each of the metadata queries that
    /// finds where the outcome topics end.
    public init(kafka: KafkaConfiguration, publicKey: SealingPublicKey, verifier: EventVerifier, name: String = "registrar-cli",
                replySecret: ReplySecret = .generate(), connectTimeout: Duration = .seconds(10)) throws {
        self.kafka = kafka
        self.publicKey = publicKey
        self.replySecret = replySecret
        self.name = name
        listener = try OutcomeListener(topics: Topic.outcomes, configuration: kafka, timeout: connectTimeout,
                                       admits: verifier.admitsOutcome)
        producer = try KafkaProducer(configuration: kafka)
        producer.learnPartitions(of: Topic.all.map(\.name))
    }

    /// Runs `body` with a new client and closes it afterwards, whether `body` returns or throws.
    public static func with<T>(kafka: KafkaConfiguration, publicKey: SealingPublicKey, verifier: EventVerifier,
                               name: String = "registrar-cli", replySecret: ReplySecret = .generate(),
                               connectTimeout: Duration = .seconds(10), _ body: (RegistrarClient) async throws -> T) async throws -> T {
        let client = try RegistrarClient(kafka: kafka, publicKey: publicKey, verifier: verifier, name: name, replySecret: replySecret,
                                         connectTimeout: connectTimeout)
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw error
        }
    }

    /// How many messages for requests of this client's were ignored: not signed by the role that produces them.
    public var ignoredOutcomes: Int { listener.refusedCount }

    /// Publishes `event` with the standard headers and returns once the broker has it, with where it put it.
    @discardableResult
    public func publish(_ event: Event) async throws -> DeliveryReport {
        try await producer.send(OutgoingMessage(event, producer: name))
    }

    /// Publishes `message` as it is (a client of another make, a hostile one) and returns once the broker has it.
    public func publish(_ message: OutgoingMessage) async throws {
        _ = try await producer.send(message)
    }

    /// Publishes `request` and returns its outcome: the first event keyed by its id on its outcome topic.
    /// Throws `TimedOut` when none comes within `timeout`, telling whether the request still waits for its worker.
    public func send(_ request: Event, timeout: Duration) async throws -> Event {
        var delivery: DeliveryReport?
        do {
            return try await outcome(of: request, timeout: timeout) { delivery = try await publish(request) }
        } catch var timedOut as TimedOut {
            timedOut.progress = delivery.flatMap(progress)
            throw timedOut
        }
    }

    /// Where the request `delivery` put on its topic stands with the workers of that topic — still queued or
    /// already consumed — from their group's committed offset; nil when it cannot be told.
    public func progress(of delivery: DeliveryReport) -> RequestProgress? {
        guard let group = Self.consumerGroup(of: delivery.topic) else { return nil }
        var configuration = kafka
        configuration.groupID = group
        // Joins no group and commits nothing: it only asks the coordinator for the group's offsets.
        guard let reader = try? KafkaConsumer(configuration: configuration, assignment: []) else { return nil }
        defer { reader.close() }
        let partition = TopicPartition(topic: delivery.topic, partition: delivery.partition)
        guard let committed = try? reader.committedOffsets([partition], timeout: .seconds(5)) else { return nil }
        let next = committed[partition] ?? 0
        return next > delivery.offset ? .consumed : .queued(ahead: delivery.offset - next)
    }

    /// The consumer group of the workers that take requests on `topic` (a worker's group is its name).
    static func consumerGroup(of topic: String) -> String? { Flow.requested(on: topic)?.handler.workerName }

    /// Runs `action` (which publishes `request`, or lets a published one proceed) and returns the outcome
    /// of `request` that follows. Throws `TimedOut` when none comes within `timeout` of `action`'s end.
    public func outcome(of request: Event, timeout: Duration, after action: () async throws -> Void) async throws -> Event {
        guard let topic = Self.outcomeTopic(of: request) else { throw NoOutcomeTopic(type: request.type) }
        guard let message = try await listener.message(keyed: request.key, on: topic, within: timeout, after: action) else {
            throw TimedOut(request: request, timeout: timeout)
        }
        return try message.event()
    }

    /// Runs `action` and returns the first genuine outcome keyed `key` on `topic` that arrives after it began (one a request
    /// leads to besides its answer: the `AccountDeleted` ending an operator's deletion), or nil when none came within `timeout`.
    public func outcome(keyed key: String, on topic: String, timeout: Duration, after action: () async throws -> Void) async throws -> Event? {
        try await listener.message(keyed: key, on: topic, within: timeout, after: action)?.event()
    }

    /// Whether the broker answers a metadata query within `timeout` (blocks the calling thread that long at most).
    public func isReachable(timeout: Duration) -> Bool {
        (try? producer.partitionCount(topic: Topic.codeRequests, timeout: timeout)).map { $0 > 0 } ?? false
    }

    /// Returns once this client stopped listening for outcomes (closed, or its consumer failed for good).
    public func listeningEnded() async { await listener.ended() }

    /// Stops listening and flushes what is still being published, waiting at most `closeLimit` for each:
    /// against a broker that is gone, librdkafka may never finish closing.
    public func close() async {
        await listener.close(within: Self.closeLimit)
        await producer.close(flushTimeout: Self.closeLimit)
    }

    /// The topic the outcome of a request published as `request` comes on; nil for an internal event.
    public static func outcomeTopic(of request: Event) -> String? { Flow.requested(on: request.topic)?.outcomes.topic }

    /// Where a request without an outcome stands with the workers of its topic.
    public enum RequestProgress: Sendable, Equatable {
        /// Not yet handled: their group has committed no offset past it; `ahead` requests before it on its
        /// partition are not handled either.
        case queued(ahead: Int64)
        /// Handled: their group has committed past it, yet no outcome came.
        case consumed
    }

    /// No outcome came for a request in time.
    public struct TimedOut: Error, CustomStringConvertible {
        public var request: Event
        public var timeout: Duration
        /// Whether the request is still queued or was consumed; nil when that could not be told.
        public var progress: RequestProgress?

        public init(request: Event, timeout: Duration, progress: RequestProgress? = nil) {
            self.request = request
            self.timeout = timeout
            self.progress = progress
        }

        public var description: String {
            let isRegistration = if case .registrationRequested = request { true } else { false }
            let what = isRegistration ? "registration" : "request"
            let status = isRegistration ? ": run `registrar status \(request.key)`" : ""
            switch progress {
            case .queued(let ahead)?:
                return "no outcome for \(what) \(request.key) within \(timeout): it is still queued, not yet taken by a worker "
                    + "(\(ahead) earlier requests on its partition wait too); it will be handled when the workers catch up\(status)"
            case .consumed?:
                return "no outcome for \(what) \(request.key) within \(timeout), though a worker has taken it: "
                    + "its outcome is late or lost\(status)"
            case nil:
                return isRegistration
                    ? "no outcome for registration \(request.key) yet; it may still finish\(status)"
                    : "no outcome for request \(request.key) within \(timeout); is the worker running?"
            }
        }
    }

    /// An event that is not a public request has no outcome to await.
    public struct NoOutcomeTopic: Error, CustomStringConvertible {
        public var type: String
        public var description: String { "\(type) is not a public request: it has no outcome topic" }
    }

    /// An outcome of a type the request does not end with.
    public struct UnexpectedOutcome: Error, CustomStringConvertible {
        public var type: String
        public init(type: String) { self.type = type }
        public var description: String { "unexpected outcome \(type)" }
    }
}
