import Domain
import EventTransport
import Foundation
import Kafka
import Support
import Synchronization
@testable import TestSupport
import Testing
@testable import WorkerRuntime

/// The worker loop against a broker (librdkafka's mock cluster in this process, over TCP): a message
/// whose step keeps failing transiently holds up only its own partition, and is handled once the
/// store recovers.
@Suite(.tags(.kafka)) struct PartitionIsolationTests {
    /// Fails `slow`'s first attempts with a transient store error; records every completion in order.
    final class FlakyStep: EventHandler, Sendable {
        static let routes = Route.set(["isolation.input": [.profileWritten]])
        let completions = Mutex<[String]>([])
        let failuresLeft = Mutex(4)

        func handle(_ event: Event) throws -> [Event] {
            if event.key == "slow" {
                let fail = failuresLeft.withLock { left in
                    defer { left -= 1 }
                    return left > 0
                }
                if fail { throw StoreError(.transient, "store busy (test)") }
            }
            completions.withLock { $0.append(event.key) }
            return []
        }
    }

    @Test func aRetryingMessageHoldsUpOnlyItsPartition() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("isolation.input", partitions: 2, replicationFactor: 1)
        var configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "isolation-test")
        configuration.groupID = "isolation-\(UUID().uuidString.prefix(6))"
        let step = FlakyStep()
        let worker = try Worker(name: "isolation-worker", configuration: configuration, routing: RoutingTable([step]),
                                signer: TestEventKeys.account, verifier: TestEventKeys.verifier, retry: Backoff(attempts: 8, initialDelay: .milliseconds(300), maxDelay: .seconds(1)))
        let shutdown = ShutdownSignal(signals: [])
        let running = Task { try await worker.run(until: shutdown) }

        let producer = try KafkaProducer(configuration: configuration)
        func send(_ key: String, partition: Int32) async throws {
            let event = Event.profileWritten(ProfileWritten(registrationId: key, uid: "00000000-0000-0000-0000-000000000000"))
            let value = EventCodec.encode(event)
            let signature = TestEventKeys.profile.headers(topic: "isolation.input", key: Array(key.utf8), type: event.type, payload: value)
            try await producer.send(OutgoingMessage(topic: "isolation.input", key: Array(key.utf8), value: value,
                                                    headers: signature, partition: partition))
        }
        try await send("slow", partition: 0)
        try await send("after-slow", partition: 0)
        for index in 0..<5 { try await send("fast-\(index)", partition: 1) }
        await producer.close()

        let deadline = ContinuousClock.now + .seconds(60)
        while step.completions.withLock({ $0.count }) < 7 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        running.cancel()
        _ = await running.result
        let order = step.completions.withLock { $0 }
        #expect(order.count == 7)
        // Partition 1 went on while partition 0's head waited for its retries; partition 0 kept its order.
        #expect(order.prefix(5).allSatisfy { $0.hasPrefix("fast-") }, "\(order)")
        #expect(Array(order.suffix(2)) == ["slow", "after-slow"])
    }
}
