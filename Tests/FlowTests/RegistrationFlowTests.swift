import Backends
import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// The registration saga across the workers' stacks, without Kafka.
@Suite(.tags(.kafkaFree)) struct RegistrationFlowTests {
    @Test func completesWithAndWithoutAnAvatar() async throws {
        try await KafkaFreeSystem.with { system in
            let photo = try await Fixtures.noiseJPEG(width: 640, height: 480)
            let withAvatar = try await system.request(email: "Ada@Example.com", name: "Ada", avatar: photo)
            let withoutAvatar = try await system.request(email: "grace@example.com", name: "Grace")
            try await system.publish([withAvatar, withoutAvatar])
            let outcomes = try await system.waitForOutcomes([withAvatar.registrationId, withoutAvatar.registrationId])

            for request in [withAvatar, withoutAvatar] {
                guard case .registrationCompleted(let outcome) = outcomes[request.registrationId]?.first else {
                    Issue.record("\(request.email): \(String(describing: outcomes[request.registrationId]))")
                    continue
                }
                let completed = try system.sealing.open(outcome)
                let account = try #require(try system.backends.accounts().account(uid: completed.uid))
                #expect(account.status == .active)
                #expect(account.email == RegistrationRules.normalizedEmail(request.email))
                #expect(account.passwordHash.hasPrefix("$argon2id$"))
                let profile = try #require(try system.backends.profiles().profile(uid: completed.uid))
                #expect(profile == completed.profile)
                #expect(profile.isComplete)
                let key = try #require(profile.profileImage.range(of: "ProfileImages/").map { String(profile.profileImage[$0.lowerBound...]) })
                #expect(key.hasSuffix(".jpg"))
                let image = try #require(try system.backends.objects().get(key))
                #expect(Fixtures.isJPEG(image))
            }
            #expect(try system.audit().isEmpty)
        }
    }

    @Test func refusesAnEmailAlreadyUsedInAnyLetterCase() async throws {
        try await KafkaFreeSystem.with { system in
            let first = try await system.request(email: "taken@example.com")
            try await system.publish([first])
            _ = try await system.waitForOutcomes([first.registrationId])
            let second = try await system.request(email: "  TAKEN@Example.COM ")
            try await system.publish([second])
            let outcomes = try await system.waitForOutcomes([second.registrationId])
            guard case .registrationFailed(let failed) = outcomes[second.registrationId]?.first else {
                Issue.record("second registration did not fail"); return
            }
            #expect(failed.reason == .emailTaken)
            #expect(try system.backends.accounts().accounts().count == 1)
        }
    }

    @Test func corruptAvatarLeavesNothingBehind() async throws {
        try await KafkaFreeSystem.with { system in
            let photo = try await Fixtures.noiseJPEG(width: 300, height: 300)
            let truncated = try await system.request(email: "corrupt@example.com", avatar: Array(photo.prefix(photo.count / 2)))
            let garbage = try await system.request(email: "garbage@example.com", avatar: Array("definitely not an image".utf8))
            try await system.publish([truncated, garbage])
            let outcomes = try await system.waitForOutcomes([truncated.registrationId, garbage.registrationId])
            #expect(reason(outcomes[truncated.registrationId]) == .imageCorrupt)
            #expect(reason(outcomes[garbage.registrationId]) == .imageNotAnImage)
            #expect(try system.backends.accounts().accounts().isEmpty)
            #expect(try system.backends.profiles().profiles().isEmpty)
            #expect(try system.backends.objects().list(prefix: "").isEmpty)
            #expect(try system.audit().isEmpty)
        }
    }

    @Test func failingProfileStoreUndoesTheAccountAndTheImage() async throws {
        try await KafkaFreeSystem.with { system in
            let probe = try await system.request(email: "before@example.com")
            try await system.publish([probe])
            _ = try await system.waitForOutcomes([probe.registrationId])
            try await system.refuseProfileWrites()

            let photo = try await Fixtures.noiseJPEG(width: 200, height: 200)
            let doomed = try await system.request(email: "doomed@example.com", avatar: photo)
            try await system.publish([doomed])
            let outcomes = try await system.waitForOutcomes([doomed.registrationId])
            #expect(reason(outcomes[doomed.registrationId]) == .profileStoreRejected)
            #expect(try system.backends.accounts().account(email: "doomed@example.com") == nil)
            #expect(try system.backends.accounts().accounts().count == 1)
            #expect(try system.backends.objects().list(prefix: "ProfileImages/").count == 1, "only the first user's image is left")
            #expect(try system.audit().isEmpty)
        }
    }

    @Test func republishingARequestReturnsTheSameOutcomeAndCreatesNothingTwice() async throws {
        try await KafkaFreeSystem.with { system in
            let request = try await system.request(email: "twice@example.com")
            try await system.publish([request])
            let first = try await system.waitForOutcomes([request.registrationId])
            try await system.publish([request])
            let deadline = ContinuousClock.now + .seconds(60)
            var outcomes = first
            while (outcomes[request.registrationId]?.count ?? 0) < 2 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                outcomes = try await system.outcomes()
            }
            let all = try #require(outcomes[request.registrationId])
            #expect(all.count == 2)
            #expect(Set(all.map(EventCodec.encode)).count == 1, "both outcomes are the same")
            #expect(try system.backends.accounts().accounts().count == 1)
            #expect(try system.backends.profiles().profiles().count == 1)
            #expect(try system.backends.objects().list(prefix: "ProfileImages/").count == 1)
        }
    }

    /// A first delivery that claimed its seals and died before creating anything (a worker killed, a broker lost with
    /// the message), then the request published again under its id with fresh seals, as a gateway restarted meanwhile
    /// does for the app's retry: the registration completes (it was refused `invalid_credentials` in a chaos run).
    @Test func aRequestPublishedAgainWithFreshSealsAfterAnInterruptedDeliveryCompletes() async throws {
        try await KafkaFreeSystem.with { system in
            let request = try await system.request(email: "interrupted@example.com")
            #expect(try system.backends.sealLedger().claim(requestId: "\(Topic.registrationRequests)/\(request.registrationId)",
                                                           digest: "the first delivery's seals", at: Date()))
            try await system.publish([request])
            let outcomes = try await system.waitForOutcomes([request.registrationId])
            guard case .registrationCompleted = outcomes[request.registrationId]?.first else {
                Issue.record("\(String(describing: outcomes[request.registrationId]))")
                return
            }
            #expect(try system.audit().isEmpty)
        }
    }

    private func reason(_ outcomes: [Event]?) -> ReasonCode? {
        guard case .registrationFailed(let failed) = outcomes?.first else { return nil }
        return failed.reason
    }
}
