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

    /// Issue 26 point 2: profile updates with a new avatar while the account worker, then the image worker, then the
    /// profile worker are killed (SIGKILL) and restarted: each update gets one outcome, the profile it answers, and
    /// every account ends with exactly one avatar — the one its profile names.
    @Test func profileUpdatesSurviveTheirWorkersKilledBetweenSteps() async throws {
        try await LiveSystem.shared(by: "CrashRecoveryTests") { system in
            let password = "crash update passphrase"
            let photo = try await Fixtures.noiseJPEG(width: 300, height: 300)
            var uids: [String] = []
            var requests: [ProfileUpdateRequested] = []
            for index in 0..<6 {
                let email = "crash-update-\(index)-\(UUID().uuidString.prefix(6))@example.com"
                uids.append(try await system.register(email, password: password))
                let tokens = try #require(try await system.signIn(.password, email: email, secret: password).1)
                requests.append(try system.client.profileUpdate(accessToken: tokens.accessToken, name: "Crash \(index)", isMapLocationEnabled: true,
                                                                avatar: photo))
            }
            for request in requests.prefix(3) { try await system.publish(.profileUpdateRequested(request)) }
            try await Task.sleep(for: .milliseconds(300))
            await system.kill("account-worker")
            for request in requests.suffix(3) { try await system.publish(.profileUpdateRequested(request)) }
            try system.startWorker("account-worker")
            for worker in ["image-worker", "profile-worker"] {
                try await Task.sleep(for: .milliseconds(800))
                await system.kill(worker)
                try system.startWorker(worker)
            }

            for (index, request) in requests.enumerated() {
                // The request again, as a client retrying after a crash would: its one answer.
                let (outcome, profile) = try await system.client.updateProfile(request, timeout: .seconds(120))
                #expect(profile?.name == "Crash \(index)" && profile?.uid == uids[index], "\(outcome)")
            }
            let answers = try await system.allTopicMessages().filter { $0.topic == Topic.accountOutcomes }
            for request in requests {
                let given = answers.filter { $0.keyString == request.requestId }.map(\.value)
                #expect(!given.isEmpty && Set(given).count == 1, "one outcome for \(request.requestId), redelivered copies identical")
            }
            let objects = try system.backends.objects()
            let stored = Set(try objects.list(prefix: "ProfileImages/").map { objects.url(for: $0.key) })
            for uid in uids {
                let profile = try #require(try system.backends.profiles().profile(uid: uid))
                #expect(profile.name.hasPrefix("Crash") && stored.contains(profile.profileImage))
            }
            #expect(try system.audit().isEmpty, "no avatar without its profile")
            #expect(system.allWorkersRunning)
        }
    }
}
