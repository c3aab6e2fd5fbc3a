import Domain
import Foundation
import Kafka
import Registration
@testable import TestSupport
import Testing

/// Workers killed mid-saga (SIGKILL: no clean-up, no commit) and restarted: every saga still ends
/// with exactly one outcome and nothing half-registered is left. The cases share one installation of
/// their own, one after the other (each restarts what it killed), and count only their own registrations.
@Suite(.tags(.live, .timed, .crash), .serialized) struct CrashRecoveryTests {
    @Test(arguments: ["account-worker", "image-worker", "profile-worker"])
    func sagasSurviveAWorkerKilledMidway(worker: String) async throws {
        try await LiveSystem.shared(by: "CrashRecoveryTests") { system in
            let photo = try await Fixtures.noiseJPEG(width: 400, height: 300)
            let requests = try await (0..<12).asyncMap { index in
                try await system.request(email: "crash-\(worker)-\(index)@example.com", avatar: index.isMultiple(of: 2) ? photo : nil)
            }
            try await system.publish(Array(requests.prefix(6)))
            // Kill the worker while the first sagas are in flight, publish more while it is down, restart it.
            try await Task.sleep(for: .milliseconds(300))
            await system.kill(worker)
            try await system.publish(Array(requests.suffix(6)))
            try system.startWorker(worker)
            try await Task.sleep(for: .milliseconds(800))
            await system.kill(worker)
            try system.startWorker(worker)

            let outcomes = try await system.waitForOutcomes(requests.map(\.registrationId), timeout: .seconds(120))
            for request in requests {
                let all = try #require(outcomes[request.registrationId])
                #expect(Set(all.map(EventCodec.encode)).count == 1, "one outcome for \(request.email), redelivered copies identical")
                guard case .registrationCompleted = all.first else { Issue.record("\(request.email) failed: \(all)"); continue }
            }
            let emails = Set(requests.map(\.email))
            let accounts = try system.backends.accounts().accounts().filter { emails.contains($0.email) }
            #expect(accounts.count == requests.count)
            let uids = Set(accounts.map(\.uid))
            #expect(try system.backends.profiles().profiles().filter { uids.contains($0.uid) }.count == requests.count)
            #expect(try system.audit().isEmpty)
            #expect(system.allWorkersRunning)
        }
    }
}
