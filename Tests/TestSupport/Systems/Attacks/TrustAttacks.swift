import Domain
import EventTransport
import Foundation
import Kafka
import Registration
import Testing
import WorkerRuntime

/// Attacks 1, 3 and 4 of issue 12 (`TrustTests`, `AdversarialTests`; attack 5 is `ObjectKeyVariants`).
extension Attacks {
    /// Attack 4, played with the producers' real keys (as by one who stole them; without, see
    /// `internalEventsWithoutTheirProducersSignatureChangeNothing`): replies for sagas that do not exist, naming the victim's uid and image id, delete
    /// nothing (no `DeleteProfile`/`DeleteAvatar` is published) and are dead-lettered `unknown_saga`;
    /// replies for the victim's own saga naming other ids are dead-lettered `reply_mismatch`; an email
    /// change reply for no change moves no account or profile.
    static func forgedRepliesDeleteNothing(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        let (image, profile) = (try system.signer(.image), try system.signer(.profile))
        let nope = (1...3).map { Attacks.unique("nope-\($0)") }
        try await system.forge(.profileWritten(ProfileWritten(registrationId: nope[0], uid: victim.uid)), signedBy: profile)
        try await system.forge(.avatarStored(AvatarStored(registrationId: nope[1], imageId: victim.imageId, url: "u")), signedBy: image)
        try await system.forge(.avatarStored(AvatarStored(registrationId: victim.registrationId, imageId: "other-image", url: "u")),
                               signedBy: image)
        try await system.forge(.profileEmailUpdated(ProfileEmail(requestId: nope[2], uid: victim.uid, email: Attacks.unique("attacker") + "@example.com", step: "awaiting_profile", revision: 4)),
                               signedBy: profile)
        let expected = [(Topic.registrationReplies, nope[0], "unknown_saga"), (Topic.registrationReplies, nope[1], "unknown_saga"),
                        (Topic.registrationReplies, victim.registrationId, "reply_mismatch"), (Topic.accountReplies, nope[2], "unknown_saga")]
        for (topic, key, reason) in expected {
            let letter = try await system.deadLetter(from: topic, key: key)
            #expect(letter.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == reason, "\(key)")
        }
        #expect(try await system.commands(on: Topic.profileCommands, naming: [victim.uid]).allSatisfy {
            if case .writeProfile = $0 { true } else { false }
        }, "only the victim's own registration wrote the profile; nothing deleted it")
        #expect(try await system.commands(on: Topic.imageCommands, naming: [victim.imageId]).allSatisfy {
            if case .storeAvatar = $0 { true } else { false }
        }, "nothing deleted the avatar")
        try await system.expectUnchanged(victim)
        #expect(try system.audit().isEmpty)
    }

    /// Attack 1: a code sign-in whose request id is the victim's registration id registers the
    /// attacker's own mailbox under a registration id of the server's: the tokens are the attacker's.
    /// (Run with `noCodeCooldown`.)
    static func aRequestIdThatIsTheVictimsRegistrationIdSignsInOnlyTheCodesOwner(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        let mailbox = Attacks.unique("attacker") + "@example.com"
        let code = try await system.code(for: mailbox, .register)
        let (outcome, tokens) = try await system.signIn(.email, email: mailbox, secret: code, id: victim.registrationId)
        guard case .tokenIssued(let issued) = outcome else { Issue.record("the attacker's own sign-in failed: \(outcome)"); return }
        let attacker = try #require(try system.backends.accounts().account(email: mailbox))
        #expect(tokens?.uid == attacker.uid && attacker.uid != victim.uid && !issued.sealedTokens.isEmpty)
        #expect(attacker.registrationId != victim.registrationId)
        #expect(try system.backends.accounts().saga(victim.registrationId)?.email == victim.email)
        try await system.expectUnchanged(victim)
    }

    /// Attack 3: forged `RegistrationCompleted`s naming the victim's uid (signed with the account
    /// worker's real key, as by one who stole it), for the attacker's own code sign-in, issue nothing: on `auth.requests` it is `unexpected_type`; under the request id it
    /// is no registration's; under the registration id the server chose it is `reply_mismatch` (the
    /// victim's sealed result is not the saga's). The sign-in is answered once, for the attacker's own account.
    /// (Run with `noCodeCooldown`.)
    static func aForgedCompletionIssuesNoTokensForTheVictim(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        let mailbox = Attacks.unique("attacker") + "@example.com"
        let code = try await system.code(for: mailbox, .register)
        let requestId = Attacks.unique("attack-3")
        guard case (.tokenIssued(let issued), let tokens?) = try await system.signIn(.email, email: mailbox, secret: code, id: requestId) else {
            Issue.record("the attacker's own sign-in failed")
            return
        }
        let attacker = try #require(try system.backends.accounts().account(email: mailbox))
        #expect(tokens.uid == attacker.uid && tokens.uid != victim.uid)
        // The victim's own sealed result, as published on registration.outcomes.
        guard case .registrationCompleted(let victimCompleted) = try await system.published(on: Topic.registrationOutcomes,
                                                                                             key: victim.registrationId) else {
            throw HarnessError("no completion for the victim")
        }
        func completion(_ registrationId: String) -> Event {
            .registrationCompleted(RegistrationCompleted(registrationId: registrationId, sealedResult: victimCompleted.sealedResult))
        }
        let account = try system.signer(.account)
        try await system.forge(completion(requestId), on: Topic.authRequests, signedBy: account)
        let misrouted = try await system.deadLetter(from: Topic.authRequests, key: requestId)
        #expect(misrouted.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == "unexpected_type")
        try await system.forge(completion(requestId), signedBy: account)
        try await system.forge(completion(attacker.registrationId), signedBy: account)
        let letter = try await system.deadLetter(from: Topic.registrationOutcomes, key: attacker.registrationId)
        #expect(letter.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == "reply_mismatch")

        let answers = try await TopicSnapshot.read([Topic.authOutcomes], configuration: system.kafka).filter { $0.keyString == requestId }
        #expect(try answers.map { try $0.event() } == [.tokenIssued(issued)], "answered once, for the attacker")
        try await system.expectUnchanged(victim)
    }
}
