import Domain
import Foundation
import Installation
import Registration
import Synchronization
@testable import TestSupport
import Testing

/// Faults of the production backends while registrations flow through the real workers.
@Suite(.tags(.live, .timed, .outage, .production), .serialized) struct ProductionFaultTests {
    /// PostgreSQL (accounts, sagas, profiles) restarted mid-run: the workers retry and reconnect,
    /// and every registration still ends complete or undone.
    @Test func registrationsSurviveAPostgreSQLRestart() async throws {
        let postgres = try PostgresServer()
        try await LiveSystem.with(postgres: postgres) { system in
            let photo = try await Fixtures.noiseJPEG(width: 300, height: 200)
            let requests = try await (0..<16).asyncMap { try await system.request(email: "restart\($0)@example.com", avatar: $0.isMultiple(of: 2) ? photo : nil) }
            // Mid-run: every worker has opened its stores and joined its group (one still starting when the
            // database stops waits for it: `StartDuringOutageTests`).
            try await GroupJoins.wait(for: ["account-worker", "image-worker", "profile-worker"], logs: system.logs)
            try await system.publish(Array(requests.prefix(8)))
            try await Task.sleep(for: .milliseconds(300))
            try postgres.stop()
            try await system.publish(Array(requests.suffix(8)))
            try await Task.sleep(for: .seconds(2))
            try postgres.start()

            let outcomes = try await system.waitForOutcomes(requests.map(\.registrationId), timeout: .seconds(120))
            for request in requests {
                let all = try #require(outcomes[request.registrationId])
                #expect(Set(all.map(EventCodec.encode)).count == 1, "one outcome for \(request.email)")
            }
            let completed = requests.filter { if case .registrationCompleted = outcomes[$0.registrationId]?.first { true } else { false } }
            #expect(try system.backends.accounts().accounts().count == completed.count)
            #expect(try system.audit().isEmpty)
            #expect(system.allWorkersRunning)
        }
    }

    /// The S3 server answering 500s and 503s for a while, then recovering: the image store retries,
    /// the worker retries, and every registration still ends complete or undone.
    @Test func registrationsSurviveS3ServerErrors() async throws {
        let relay = Mutex<HTTPRelay?>(nil)
        try await LiveSystem.with(relayingImages: { port in
            let created = try HTTPRelay(to: port)
            relay.withLock { $0 = created }
            return created
        }) { system in
            let photo = try await Fixtures.noiseJPEG(width: 300, height: 200)
            let requests = try await (0..<12).asyncMap { try await system.request(email: "s3fault\($0)@example.com", avatar: $0.isMultiple(of: 3) ? nil : photo) }
            relay.withLock { $0?.inject(Array(repeating: 500, count: 6) + Array(repeating: 503, count: 6)) }
            try await system.publish(requests)

            let outcomes = try await system.waitForOutcomes(requests.map(\.registrationId), timeout: .seconds(120))
            for request in requests {
                let all = try #require(outcomes[request.registrationId])
                #expect(Set(all.map(EventCodec.encode)).count == 1, "one outcome for \(request.email)")
            }
            let completed = requests.filter { if case .registrationCompleted = outcomes[$0.registrationId]?.first { true } else { false } }
            #expect(completed.count == requests.count, "the errors were transient: every registration completes")
            #expect(relay.withLock { $0?.pendingFaults } == 0, "every injected error was answered to a worker")
            #expect(try system.backends.accounts().accounts().count == completed.count)
            #expect(try system.audit().isEmpty)
        }
        relay.withLock { $0?.close() }
    }
}
