import AccountChanges
import Domain
import Foundation
import Kafka
import Registration
import RegistrarClient
import SignIn
@testable import TestSupport
import Testing

/// The profile update saga (issue 26 point 2) through the real workers in process: name, `isMapLocationEnabled` and a
/// new avatar, which is stored under a new id before the profile is switched to it and the old one deleted; a refusal
/// at any step, or its deadline, leaves the profile as it was and no new image; another user's token, a replayed request
/// and a replayed command change nothing; two updates at once end with the profile naming exactly one stored image.
@Suite(.tags(.inProcess)) struct ProfileUpdateTests {
    static let password = "updater quartz lantern 42"

    /// A registered, signed-in user: uid, access token, the avatar the profile names now.
    struct User {
        var email: String
        var uid: String
        var accessToken: String
        var imageId: String
    }

    static func user(_ email: String, on system: InProcessSystem) async throws -> User {
        let uid = try await system.register(email, password: password)
        let tokens = try #require(try await system.signIn(.password, email: email, secret: password).1)
        return User(email: email, uid: uid, accessToken: tokens.accessToken, imageId: try DeletionTests.imageId(of: uid, on: system))
    }

    static func update(_ user: User, name: String? = nil, map: Bool? = nil, avatar: [UInt8]? = nil, requestId: String = UUID().uuidString.lowercased(),
                       on system: InProcessSystem) async throws -> (Event, ProfileView?) {
        let request = try system.client.profileUpdate(accessToken: user.accessToken, name: name, isMapLocationEnabled: map, avatar: avatar,
                                                      requestId: requestId)
        return try await system.client.updateProfile(request, timeout: .seconds(60))
    }

    /// The image ids of the stored avatars.
    static func storedImages(on system: InProcessSystem) throws -> Set<String> {
        Set(try system.backends.objects().list(prefix: "ProfileImages/").map { String($0.key.dropFirst("ProfileImages/".count).dropLast(4)) })
    }

    @Test func anUpdateStoresTheNewAvatarSwitchesTheProfileThenDeletesTheOldOne() async throws {
        try await InProcessSystem.with { system in
            let user = try await Self.user("editor@example.com", on: system)
            let avatar = try await Fixtures.noiseJPEG(width: 300, height: 200)
            let request = try system.client.profileUpdate(accessToken: user.accessToken, name: "  Ada Lovelace ", isMapLocationEnabled: true,
                                                          avatar: avatar)
            let (outcome, view) = try await system.client.updateProfile(request, timeout: .seconds(60))
            let updated = try #require(view, "\(outcome)")
            #expect(updated.uid == user.uid && updated.name == "Ada Lovelace" && updated.isMapLocationEnabled && updated.email == user.email)
            let stored = try #require(try system.backends.profiles().profile(uid: user.uid))
            #expect(stored == Profile(name: "Ada Lovelace", email: user.email, profileImage: updated.profileImage, isMapLocationEnabled: true))
            let images = try Self.storedImages(on: system)
            #expect(images.count == 1 && !images.contains(user.imageId), "the old avatar is gone, the new one stored")
            let newImageId = try #require(images.first)
            #expect(try updated.profileImage == system.backends.objects().url(for: AvatarStep.key(imageId: newImageId)))
            #expect(Fixtures.isJPEG(try #require(try system.backends.objects().get(AvatarStep.key(imageId: newImageId)))))
            #expect(try system.audit().isEmpty)
            guard case .profileAnswered = try await system.client.profile(accessToken: user.accessToken, timeout: .seconds(60)).0 else {
                Issue.record("the updated profile is not readable")
                return
            }

            // The request again: the same answer, nothing done twice; its commands replayed: nothing changes.
            #expect(try await system.send(.profileUpdateRequested(request)) == outcome)
            for topic in [Topic.imageCommands, Topic.profileCommands] {
                for message in try await system.allTopicMessages().filter({ $0.topic == topic && $0.keyString == request.requestId }) {
                    try await system.client.publish(OutgoingMessage(topic: message.topic, key: message.key, value: message.value, headers: message.headers))
                }
            }
            try await Task.sleep(for: .seconds(2))
            #expect(try system.backends.profiles().profile(uid: user.uid) == stored)
            #expect(try Self.storedImages(on: system) == images)

            // A name alone keeps the avatar; the deletion later erases the avatar the update stored.
            let (_, renamed) = try await Self.update(user, name: "Ada", on: system)
            #expect(renamed?.name == "Ada" && renamed?.profileImage == updated.profileImage && renamed?.isMapLocationEnabled == true)
            #expect(try Self.storedImages(on: system) == images)
            let fresh = try #require(try await system.signIn(.password, email: user.email, secret: Self.password).1)
            let (_, export) = try await system.client.export(accessToken: fresh.accessToken, timeout: .seconds(60))
            #expect(export?.history.map(\.type) == ["registration", "update_profile", "update_profile"], "the export lists the updates")
            let deletion = system.client.deletion(accessToken: fresh.accessToken, proof: .password(Self.password))
            #expect(try await system.send(.accountDeletionRequested(deletion)) == .accountDeleted(AccountDeleted(requestId: deletion.requestId)))
            #expect(try Self.storedImages(on: system).isEmpty && system.audit().isEmpty)
        }
    }

    /// The registration's rules and reason codes: an empty or too long name, an avatar that is not an image, nothing to
    /// change. Each is refused and the profile and the images are as they were.
    @Test func aRefusedUpdateLeavesTheProfileAndTheImagesAsTheyWere() async throws {
        try await InProcessSystem.with { system in
            let user = try await Self.user("careful@example.com", on: system)
            let profile = try system.backends.profiles().profile(uid: user.uid)
            let before = try system.counts()
            #expect(reason(try await Self.update(user, name: "   ", on: system).0) == .nameEmpty)
            #expect(reason(try await Self.update(user, name: String(repeating: "n", count: ContractLimits.nameCharacters + 1), on: system).0) == .nameTooLong)
            #expect(reason(try await Self.update(user, on: system).0) == .profileUnchanged)
            #expect(reason(try await Self.update(user, name: "Renamed", avatar: Array("not an image at all".utf8), on: system).0) == .imageNotAnImage)
            #expect(try system.backends.profiles().profile(uid: user.uid) == profile)
            #expect(try system.counts() == before && Self.storedImages(on: system) == [user.imageId])
            #expect(try system.audit().isEmpty)
        }
    }

    /// Another user's sealed token copied into an attacker's request, a forged token, a signed-out session's token and a
    /// seal made for another request type: refused `invalid_credentials`, and nothing of the victim's changes.
    @Test func anAttackerUpdatesNothing() async throws {
        try await InProcessSystem.with { system in
            let victim = try await Self.user("victim-of-update@example.com", on: system)
            let attacker = try await Self.user("attacker-of-update@example.com", on: system)
            let profile = try system.backends.profiles().profile(uid: victim.uid)
            let before = try system.counts()

            let copiedSeal = try system.client.profileUpdate(accessToken: victim.accessToken, name: "x", requestId: "victims-update").sealedAccessToken
            let copied = ProfileUpdateRequested(requestId: "attackers-update", sealedAccessToken: copiedSeal,
                                                replyKey: system.client.replyKey(for: "attackers-update"), name: "Pwned")
            #expect(reason(try await system.send(.profileUpdateRequested(copied))) == .invalidCredentials)
            var forged = victim
            forged.accessToken = String(victim.accessToken.dropLast(4)) + "AAAA"
            #expect(reason(try await Self.update(forged, name: "Pwned", on: system).0) == .invalidCredentials)
            let exportSeal = ProfileUpdateRequested(requestId: "export-seal", sealedAccessToken: system.client.seal(
                victim.accessToken, for: .export, requestId: "export-seal", email: nil), replyKey: system.client.replyKey(for: "export-seal"), name: "Pwned")
            #expect(reason(try await system.send(.profileUpdateRequested(exportSeal))) == .invalidCredentials)
            // The attacker's own token acts on the attacker's account only, whatever the request names.
            let (_, own) = try await Self.update(attacker, name: "Attacker", on: system)
            #expect(own?.uid == attacker.uid)
            // A signed-out session's token counts no more.
            guard case .signedOut = try await system.client.signOut(.session, token: victim.accessToken, timeout: .seconds(60)) else {
                Issue.record("the victim could not sign out")
                return
            }
            #expect(reason(try await Self.update(victim, name: "Pwned", on: system).0) == .invalidCredentials)

            #expect(try system.backends.profiles().profile(uid: victim.uid) == profile)
            #expect(try system.counts() == before)
            #expect(try system.audit().isEmpty)
        }
    }

    /// The hidden case: two avatar updates of one account at once. Each gets one outcome; in the end the profile names
    /// exactly one stored image, and no other avatar of the account remains.
    @Test func twoAvatarUpdatesAtOnceLeaveOneImage() async throws {
        try await InProcessSystem.with { system in
            let user = try await Self.user("twice@example.com", on: system)
            let (first, second) = (try await Fixtures.noiseJPEG(width: 120, height: 90), try await Fixtures.noiseJPEG(width: 90, height: 120))
            async let one = Self.update(user, name: "One", avatar: first, on: system)
            async let two = Self.update(user, name: "Two", avatar: second, on: system)
            let outcomes = [try await one.0, try await two.0]
            for outcome in outcomes {
                switch outcome {
                case .profileUpdated: break
                case .accountChangeFailed(let refused): #expect(refused.reason == .profileUpdateInProgress, "\(refused)")
                default: Issue.record("unexpected outcome \(outcome)")
                }
            }
            #expect(outcomes.contains { $0.kind == .profileUpdated })
            let profile = try #require(try system.backends.profiles().profile(uid: user.uid))
            let images = try Self.storedImages(on: system)
            #expect(images.count == 1, "one image: \(images)")
            let objects = try system.backends.objects()
            #expect(images.map { objects.url(for: AvatarStep.key(imageId: $0)) } == [profile.profileImage])
            #expect(try system.audit().isEmpty)
            // Once answered, the next update goes through.
            let (_, third) = try await Self.update(user, avatar: first, on: system)
            #expect(third != nil)
            #expect(try Self.storedImages(on: system).count == 1)
        }
    }

    /// The profile store is locked for longer than the deadline while an update waits for it: the profile worker,
    /// retrying, sends `ProfileUpdateWaiting` every second, which keeps the update from its deadline; once the store is
    /// back the update completes, undone by nothing. (SQLite fails a write after its 5 s busy timeout, PostgreSQL after
    /// its 5 s lock timeout and the store's own retries, about 35 s: the deadline and the lock are longer there.)
    @Test func aWaitingProfileWorkersHeartbeatsKeepTheUpdateFromItsDeadline() async throws {
        let (deadline, held) = StoreLocation.productionRequested ? (45, 60) : (15, 30)
        try await InProcessSystem.with(extraArguments: ["account-worker": ["--saga-deadline", String(deadline)],
                                                        "profile-worker": ["--heartbeat-interval", "1"]]) { system in
            let user = try await Self.user("patient@example.com", on: system)
            let lock = try await system.backends.lockProfiles(logs: system.logs)
            let request = try system.client.profileUpdate(accessToken: user.accessToken, name: "Patient")
            try await system.publish(.profileUpdateRequested(request))
            let stores = try system.backends.options.accountChangeStore()
            try await DeletionTests.wait { try stores.profileUpdate(requestId: request.requestId)?.stage == .updatingProfile }
            try await Task.sleep(for: .seconds(held))
            let waiting = try stores.profileUpdate(requestId: request.requestId)?.stage
            let beats = try await system.allTopicMessages().filter {
                $0.topic == Topic.accountReplies && $0.keyString == request.requestId && (try? $0.event())?.kind == .profileUpdateWaiting
            }.count
            await system.backends.releaseProfiles(lock)
            #expect(waiting == .updatingProfile, "the heartbeats kept the update from its deadline")
            #expect(beats >= 1, "\(beats) heartbeats")
            let (outcome, view) = try await system.client.updateProfile(request, timeout: .seconds(120))
            #expect(view?.name == "Patient", "\(outcome)")
            #expect(try system.backends.profiles().profile(uid: user.uid)?.name == "Patient")
        }
    }

    /// The profile worker stops while the profile is being switched; the deadline (5 s without progress, for an account
    /// worker started again with it once the update waits there) undoes the update: the profile is set back (after the
    /// forward command, which it makes stale or follows), the new avatar deleted, and the one outcome is
    /// `deadline_exceeded`. A deletion waits meanwhile.
    @Test func theDeadlineUndoesAnUpdateWhoseProfileStepStalls() async throws {
        try await InProcessSystem.with { system in
            let user = try await Self.user("stalled@example.com", on: system)
            let profile = try system.backends.profiles().profile(uid: user.uid)
            try await system.hold("profile-worker")
            let request = try system.client.profileUpdate(accessToken: user.accessToken, name: "Stalled", isMapLocationEnabled: true,
                                                          avatar: try await Fixtures.noiseJPEG(width: 64, height: 64))
            try await system.publish(.profileUpdateRequested(request))
            let stores = try system.backends.options.accountChangeStore()
            try await DeletionTests.wait { try stores.profileUpdate(requestId: request.requestId)?.stage == .updatingProfile }
            #expect(try Self.storedImages(on: system).count == 2, "the new avatar is stored beside the old one")
            let deletion = system.client.deletion(accessToken: user.accessToken, proof: .password(Self.password))
            #expect(reason(try await system.send(.accountDeletionRequested(deletion))) == .profileUpdateInProgress)
            try await system.hold("account-worker")
            try system.startWorker("account-worker", extraArguments: ["--saga-deadline", "5"])
            try await DeletionTests.wait { try stores.profileUpdate(requestId: request.requestId)?.stage == .restoringProfile }

            try await system.resume("profile-worker")
            let outcome = try await system.send(.profileUpdateRequested(request))
            #expect(reason(outcome) == .deadlineExceeded, "\(outcome)")
            #expect(try system.backends.profiles().profile(uid: user.uid) == profile)
            #expect(try Self.storedImages(on: system) == [user.imageId])
            #expect(try system.audit().isEmpty)
            #expect(try stores.account(uid: user.uid)?.status == .active)
        }
    }
}
