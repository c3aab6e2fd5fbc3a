import Crypto
import Domain
import EventTransport
import Foundation
import Kafka
import Registration
import Testing
import WorkerRuntime

/// Issue 12 point 1 (`ForgedEventTests`, `AdversarialTests`).
extension Attacks {
    /// Commands and replies forged on the internal topics — unsigned, signed with an unknown key, signed by a
    /// role the route does not take, or a valid signature moved to another topic or key or kept over a changed
    /// payload — are each dead-lettered `unauthenticated`, and the victim's profile and avatar are unchanged.
    static func internalEventsWithoutTheirProducersSignatureChangeNothing(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        let (account, image, profile) = (try system.signer(.account), try system.signer(.image), try system.signer(.profile))
        let stranger = EventSigner(role: .account, key: .generate())
        func deleteProfile(_ id: String) -> Event { .deleteProfile(DeleteProfile(registrationId: id, uid: victim.uid, step: "compensating", revision: 3)) }
        var renamed = victim.profile
        renamed.name = "Attacker"
        let run = Attacks.unique("forged")
        func forged(_ number: Int) -> String { "\(run)-\(number)" }
        let attackerEmail = Attacks.unique("attacker") + "@example.com"

        // profile.commands
        try await system.forge(deleteProfile(forged(1)))
        try await system.forge(.writeProfile(WriteProfile(registrationId: forged(2), uid: victim.uid, profile: renamed, step: "awaiting_profile", revision: 2)), signedBy: stranger)
        try await system.forge(.updateProfileEmail(ProfileEmail(requestId: forged(3), uid: victim.uid, email: attackerEmail, step: "awaiting_profile", revision: 4)),
                               signedBy: profile)
        try await system.client.publish(moved(deleteProfile(forged(4)), signedBy: account, as: Topic.imageCommands, forged(4)))
        try await system.client.publish(moved(deleteProfile(forged(5)), signedBy: account, as: Topic.profileCommands, run + "-elsewhere"))
        // The victim's own WriteProfile, as the account worker signed it, with another profile.
        let captured = try #require(try await TopicSnapshot.read([Topic.profileCommands], configuration: system.kafka)
            .first { $0.keyString == victim.registrationId })
        let changed = EventCodec.encode(.writeProfile(WriteProfile(registrationId: victim.registrationId, uid: victim.uid, profile: renamed, step: "awaiting_profile", revision: 2)))
        try await system.client.publish(OutgoingMessage(topic: captured.topic, key: captured.key, value: changed, headers: captured.headers))
        // image.commands
        try await system.forge(.deleteAvatar(DeleteAvatar(registrationId: forged(7), imageId: victim.imageId, step: "compensating", revision: 3)))
        try await system.forge(.storeAvatar(StoreAvatar(registrationId: forged(8), imageId: victim.imageId, avatar: nil, step: "awaiting_avatar", revision: 1)), signedBy: image)
        try await system.forge(.deleteAvatar(DeleteAvatar(registrationId: forged(9), imageId: victim.imageId, step: "compensating", revision: 3)), signedBy: stranger)
        // registration.replies, account.replies, registration.outcomes
        try await system.forge(.avatarDeleted(AvatarDeleted(registrationId: victim.registrationId, imageId: victim.imageId)))
        try await system.forge(.profileDeleted(ProfileDeleted(registrationId: forged(10), uid: victim.uid)), signedBy: image)
        try await system.forge(.avatarStored(AvatarStored(registrationId: forged(11), imageId: victim.imageId, url: "u")), signedBy: account)
        try await system.forge(.profileEmailUpdated(ProfileEmail(requestId: forged(12), uid: victim.uid, email: attackerEmail, step: "awaiting_profile", revision: 4)))
        try await system.forge(.profileEmailUpdated(ProfileEmail(requestId: forged(13), uid: victim.uid, email: attackerEmail, step: "awaiting_profile", revision: 4)),
                               signedBy: stranger)
        try await system.forge(.registrationCompleted(RegistrationCompleted(registrationId: forged(14), sealedResult: forgedResult(naming: victim.uid, renamed))),
                               signedBy: profile)

        let expected = [
            (Topic.profileCommands, forged(1)), (Topic.profileCommands, forged(2)), (Topic.profileCommands, forged(3)),
            (Topic.profileCommands, forged(4)), (Topic.profileCommands, forged(5)), (Topic.profileCommands, victim.registrationId),
            (Topic.imageCommands, forged(7)), (Topic.imageCommands, forged(8)), (Topic.imageCommands, forged(9)),
            (Topic.registrationReplies, victim.registrationId), (Topic.registrationReplies, forged(10)),
            (Topic.registrationReplies, forged(11)), (Topic.accountReplies, forged(12)), (Topic.accountReplies, forged(13)),
            (Topic.registrationOutcomes, forged(14)),
        ]
        for (topic, key) in expected {
            let letter = try await system.deadLetter(from: topic, key: key)
            #expect(letter.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == "unauthenticated", "\(topic) \(key)")
        }
        try await expectNothingDone(to: victim, on: system)
    }

    /// `event` keyed `key` with a valid signature by `signer` made for topic `signedTopic` and key `signedKey`,
    /// published to its own topic: a signature replayed under another topic or key.
    static func moved(_ event: Event, signedBy signer: EventSigner, as signedTopic: String, _ signedKey: String) -> OutgoingMessage {
        let message = OutgoingMessage(event, producer: "attacker")
        let signature = signer.headers(topic: signedTopic, key: Array(signedKey.utf8), type: event.type, payload: message.value)
        return OutgoingMessage(topic: message.topic, key: message.key, value: message.value, headers: message.headers + signature)
    }

    /// A completion's sealed result naming `uid` with `profile`, sealed to a key of the attacker's own.
    static func forgedResult(naming uid: String, _ profile: Profile) -> String {
        let result = RegistrationResult(requestId: "forged", uid: uid, profile: profile)
        return Data(SealingKeyPair.generate().publicKey.seal(Array(result.sealedJSON.utf8))).base64EncodedString()
    }
}
