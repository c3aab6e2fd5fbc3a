import Kafka
import Synchronization
import WorkerAssembly

/// The workers' consumer groups as the cluster describes them. A cluster that cannot is asked again only after
/// `pause`, so that each page is not held up waiting. The local broker is never asked: librdkafka's mock cluster
/// has no DescribeGroups, and librdkafka 2.0.2 can abort (`rd_kafka_enq_once_del_source_return` assertion) when
/// such a request times out.
final class GroupMembers: Sendable {
    /// Nil for the local broker.
    private let admin: KafkaAdmin?
    private let pause: Duration
    private let failed = Mutex<(until: ContinuousClock.Instant, error: any Error & Sendable)?>(nil)

    /// Why the local broker's groups are not described.
    struct LocalBroker: Error, CustomStringConvertible {
        var description: String { "the local broker (librdkafka's mock cluster) cannot describe consumer groups" }
    }

    init(kafka: KafkaConfiguration, isLocalBroker: Bool, pause: Duration = .seconds(60)) throws {
        admin = isLocalBroker ? nil : try KafkaAdmin(configuration: kafka)
        self.pause = pause
    }

    /// Each worker group's description, or the error of the last attempt while it pauses.
    func describe() async throws -> [String: Result<ConsumerGroupDescription, KafkaError>] {
        guard let admin else { throw LocalBroker() }
        if let last = failed.withLock({ $0 }), ContinuousClock.now < last.until { throw last.error }
        do {
            return try await admin.describeConsumerGroups(TopicAccess.workers.map { $0.name }, timeout: .seconds(3))
        } catch {
            failed.withLock { $0 = (ContinuousClock.now + pause, error) }
            throw error
        }
    }
}
