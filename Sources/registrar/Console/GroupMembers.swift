import Kafka
import Synchronization
import WorkerAssembly

/// The workers' consumer groups as the cluster describes them. A cluster that cannot (librdkafka's mock
/// cluster has no DescribeGroups) is asked again only after `pause`, so that each page is not held up waiting.
final class GroupMembers: Sendable {
    private let admin: KafkaAdmin
    private let pause: Duration
    private let failed = Mutex<(until: ContinuousClock.Instant, error: any Error & Sendable)?>(nil)

    init(kafka: KafkaConfiguration, pause: Duration = .seconds(60)) throws {
        admin = try KafkaAdmin(configuration: kafka)
        self.pause = pause
    }

    /// Each worker group's description, or the error of the last attempt while it pauses.
    func describe() async throws -> [String: Result<ConsumerGroupDescription, KafkaError>] {
        if let last = failed.withLock({ $0 }), ContinuousClock.now < last.until { throw last.error }
        do {
            return try await admin.describeConsumerGroups(TopicAccess.workers.map { $0.name }, timeout: .seconds(3))
        } catch {
            failed.withLock { $0 = (ContinuousClock.now + pause, error) }
            throw error
        }
    }
}
