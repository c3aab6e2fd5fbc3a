import Domain
import Foundation
import Kafka
import RegistrarClient
@testable import TestSupport
import Testing

/// A registration whose outcome does not come in time says whether it still waits for a worker or was taken
/// by one: the account workers' group committed offset on its partition tells.
@Suite(.tags(.inProcess)) struct TimedOutProgressTests {
    @Test func aRegistrationNoWorkerTookIsQueued() async throws {
        try await InProcessSystem.with(workers: []) { system in
            let first = try await timeOut(system, "first@example.com")
            #expect(first.progress == .queued(ahead: 0))
            #expect(first.description.contains("still queued"))
        }
    }

    @Test func aRegistrationAWorkerCommittedPastIsConsumed() async throws {
        try await InProcessSystem.with(workers: []) { system in
            let request = try system.client.registration(email: "taken@example.com", password: "a fine password 1", code: nil, name: "Taken")
            let event = Event.registrationRequested(request)
            let delivery = try await system.client.publish(event)
            #expect(system.client.progress(of: delivery) == .queued(ahead: 0))
            // A member of the account workers' group handles it (commits past it) and its outcome never comes.
            var configuration = system.kafka
            configuration.groupID = "account-worker"
            let worker = try KafkaConsumer(configuration: configuration, assignment: [
                TopicPartitionOffset(topic: delivery.topic, partition: delivery.partition, offset: .offset(delivery.offset)),
            ])
            for try await message in worker.messages where message.offset == delivery.offset {
                try worker.commit(message)
                break
            }
            worker.close()
            #expect(system.client.progress(of: delivery) == .consumed)
            do {
                _ = try await system.client.outcome(of: event, timeout: .seconds(1)) {}
                Issue.record("an outcome came for a request nobody answered")
            } catch let timedOut as RegistrarClient.TimedOut {
                #expect(timedOut.progress == nil, "outcome(of:after:) publishes nothing, so it cannot tell")
            }
        }
    }

    /// Registers `email` with no worker to answer, and returns the time-out.
    private func timeOut(_ system: InProcessSystem, _ email: String) async throws -> RegistrarClient.TimedOut {
        let request = try system.client.registration(email: email, password: "a fine password 1", code: nil, name: "Nobody Answers")
        do {
            _ = try await system.client.register(request, timeout: .seconds(1))
        } catch let timedOut as RegistrarClient.TimedOut {
            return timedOut
        }
        throw HarnessError("an outcome came for a request no worker took")
    }
}
