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

    /// Deletions with the account worker, then the profile worker, killed while they run and restarted: each ends with its
    /// one outcome (`AccountDeleted`, redelivered copies identical) and nothing of the accounts left in any store.
    @Test func deletionsSurviveTheirWorkersKilledBetweenSteps() async throws {
        try await LiveSystem.shared(by: "CrashRecoveryTests") { system in
            let password = "crash deletion quartz lantern"
            let emails = (0..<6).map { "crash-deletion-\($0)-\(UUID().uuidString.prefix(6))@example.com" }
            var uids: [String] = []
            var requests: [AccountDeletionRequested] = []
            for email in emails {
                uids.append(try await system.register(email, password: password))
                let tokens = try #require(try await system.signIn(.password, email: email, secret: password).1)
                requests.append(system.client.deletion(accessToken: tokens.accessToken, proof: .password(password)))
            }
            let accounts = try system.backends.accounts()
            let imageIds = try uids.map { uid in
                let registrationId = try #require(try accounts.account(uid: uid)).registrationId
                return try #require(try accounts.saga(registrationId)).imageId
            }
            for request in requests.prefix(3) { try await system.publish(.accountDeletionRequested(request)) }
            try await Task.sleep(for: .milliseconds(300))
            await system.kill("account-worker")
            for request in requests.suffix(3) { try await system.publish(.accountDeletionRequested(request)) }
            try system.startWorker("account-worker")
            try await Task.sleep(for: .milliseconds(800))
            await system.kill("profile-worker")
            try system.startWorker("profile-worker")

            for request in requests {
                // The request again, as a client retrying after a crash would: its one answer.
                let outcome = try await system.send(.accountDeletionRequested(request), timeout: .seconds(120))
                #expect(outcome == .accountDeleted(AccountDeleted(requestId: request.requestId)), "\(outcome)")
            }
            let answers = try await system.allTopicMessages().filter { $0.topic == Topic.accountOutcomes }
            for request in requests {
                let given = answers.filter { $0.keyString == request.requestId }.map(\.value)
                #expect(!given.isEmpty && Set(given).count == 1, "one outcome for \(request.requestId), redelivered copies identical")
            }
            for (uid, imageId) in zip(uids, imageIds) {
                #expect(try accounts.account(uid: uid) == nil && system.backends.profiles().profile(uid: uid) == nil)
                #expect(try !system.backends.objects().contains(AvatarStep.key(imageId: imageId)))
            }
            #expect(try emails.allSatisfy { try accounts.account(email: $0) == nil })
            #expect(try system.audit().isEmpty)
            #expect(system.allWorkersRunning)
        }
    }
}
