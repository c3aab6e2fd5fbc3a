import Domain
import EventTransport
import Foundation
@testable import TestSupport
import Testing

/// The local broker keeps everything in memory and listens on a new port each time it starts. The
/// workers follow it through `<data-dir>/broker.bootstrap`: after a restart a new request is answered,
/// and a request re-published (its outcome was lost with the old broker) gets the very same outcome.
@Suite(.tags(.live, .timed)) struct BrokerRestartTests {
    @Test func workersFollowARestartedBrokerAndARepublishedRequestGetsItsOutcomeAgain() async throws {
        try await LiveSystem.with { system in
            let first = try await system.request(email: "before-restart@example.com")
            let before = try await system.send(.registrationRequested(first))
            guard case .registrationCompleted = before else { Issue.record("not completed: \(before)"); return }
            let oldAddress = system.installation.bootstrap

            try await system.installation.restartBroker()
            #expect(system.installation.bootstrap != oldAddress)
            let client = try system.installation.client(name: "after-restart")
            // The system's own client knew the old broker only: the new one asks for the code too.
            let code = try await client.mailedCode(.register, to: "after-restart@example.com", in: system.backends.emails)
            let second = try client.registration(email: "after-restart@example.com", password: "correct horse battery", code: code, name: "After")
            let after = try await client.send(.registrationRequested(second), timeout: .seconds(90))
            let again = try await client.send(.registrationRequested(first), timeout: .seconds(60))
            await client.close()

            guard case .registrationCompleted = after else { Issue.record("not completed after the restart: \(after)"); return }
            #expect(EventCodec.encode(again) == EventCodec.encode(before), "the re-published request gets its first outcome")
            #expect(try system.backends.accounts().accounts().count == 2)
            #expect(try system.audit().isEmpty)
            #expect(system.allWorkersRunning)
            for worker in ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker"] {
                try await system.waitForLog(of: worker, containing: "the local broker moved; reconnecting", timeout: .seconds(5))
                // Its session on the old broker abandoned, not closed against an address that no longer answers (BrokerMoveTests).
                try await system.waitForLog(of: worker, containing: "abandoning the session", timeout: .seconds(5))
            }
        }
    }
}
