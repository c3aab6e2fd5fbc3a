import Crypto
import Domain
import EventTransport
import Foundation
import Kafka
import Testing
import WorkerRuntime

/// Attacks 3 and 4 of issue 12 as tables (`AttackVariantTests`): every internal event type, aimed at a
/// victim, forged on every public topic a worker reads and on its own internal topic with every wrong
/// signature; replies of every type for sagas that do not exist. Each row gets its dead-letter reason, and
/// afterwards the victim is unchanged, still signs in, and the audit is clean.
extension Attacks {
    /// The public topics workers read: the four request topics and `registration.outcomes`.
    static let publicInputs = [Topic.registrationRequests, Topic.codeRequests, Topic.authRequests, Topic.accountRequests,
                               Topic.registrationOutcomes]

    /// The event types a worker produces (each carries its producer's signature).
    static let internalKinds = Event.Kind.allCases.filter { !$0.producers.isEmpty }

    /// Every internal type on every public topic other than its own, unsigned and signed by its real producer
    /// for that topic (as by one who stole the key): `unexpected_type`, the routing table takes no such type there.
    static func everyInternalTypeOnEveryPublicTopicIsUnexpected(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        var expected: [Forgery] = []
        for kind in internalKinds {
            for (index, topic) in publicInputs.enumerated() where topic != kind.topic {
                for signed in [false, true] {
                    let id = "public-\(kind.rawValue)-\(index)-\(signed)"
                    let signer = signed ? try system.signer(try #require(kind.producers.first)) : nil
                    try await system.forge(forgery(kind, id: id, against: victim), on: topic, signedBy: signer)
                    expected.append(Forgery(topic: topic, key: id, reason: "unexpected_type"))
                }
            }
        }
        try await expectDeadLettered(expected, on: system)
        try await expectNothingDone(to: victim, on: system)
    }

    /// Every internal type a worker reads, on its own topic: unsigned, signed with a key nobody trusts under its
    /// producer's role, and signed by each other role's real key: `unauthenticated`.
    static func everyInternalTypeWithoutItsProducersSignatureIsUnauthenticated(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        var expected: [Forgery] = []
        for kind in internalKinds where Topic.inputs.contains(kind.topic) {
            let producer = try #require(kind.producers.first)
            let signers: [(String, EventSigner?)] = [("unsigned", nil), ("stranger", EventSigner(role: producer, key: .generate()))]
                + (try WorkerRole.allCases.filter { !kind.producers.contains($0) }.map { ($0.rawValue, try system.signer($0)) })
            for (name, signer) in signers {
                let id = "own-\(kind.rawValue)-\(name)"
                try await system.forge(forgery(kind, id: id, against: victim), signedBy: signer)
                expected.append(Forgery(topic: kind.topic, key: id, reason: "unauthenticated"))
            }
        }
        try await expectDeadLettered(expected, on: system)
        try await expectNothingDone(to: victim, on: system)
    }

    /// A reply of every type the sagas take, for a saga that does not exist, naming the victim's uid or image
    /// id and signed by its real producer: `unknown_saga`, and nothing is deleted or moved.
    static func everyReplyForNoSagaIsUnknown(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        var expected: [Forgery] = []
        for kind in internalKinds where [Topic.registrationReplies, Topic.accountReplies].contains(kind.topic) {
            let id = "nosaga-\(kind.rawValue)"
            try await system.forge(forgery(kind, id: id, against: victim), signedBy: try system.signer(try #require(kind.producers.first)))
            expected.append(Forgery(topic: kind.topic, key: id, reason: "unknown_saga"))
        }
        #expect(expected.count == 20, "eight registration replies (two of them heartbeats), twelve account replies (three of them heartbeats)")
        try await expectDeadLettered(expected, on: system)
        try await expectNothingDone(to: victim, on: system)
    }

    /// A forged message, where it went and the dead-letter reason it must get.
    struct Forgery: CustomStringConvertible {
        var topic: String
        var key: String
        var reason: String
        var description: String { "\(key) on \(topic)" }
    }

    /// Expects each forgery dead-lettered from its topic with its reason.
    static func expectDeadLettered(_ forgeries: [Forgery], on system: some TestSystem, timeout: Duration = .seconds(90)) async throws {
        let topics = Set(forgeries.map { Topic.deadLetters(of: $0.topic) })
        let deadline = ContinuousClock.now + timeout
        var reasons: [String: String] = [:]
        while reasons.count < forgeries.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(300))
            for letter in try await TopicSnapshot.read(Array(topics), configuration: system.kafka) {
                guard let forgery = forgeries.first(where: { Topic.deadLetters(of: $0.topic) == letter.topic && $0.key == letter.keyString }) else {
                    continue
                }
                reasons[forgery.description] = letter.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) }
            }
        }
        for forgery in forgeries {
            #expect(reasons[forgery.description] == forgery.reason, "\(forgery)")
        }
    }

    /// Expects no signed command naming the victim but the victim's own registration's (each at least once; other
    /// attacks may share the installation), and the victim unchanged and signing in, with a clean audit.
    static func expectNothingDone(to victim: Victim, on system: some TestSystem) async throws {
        let account = try system.signer(.account)
        let verifier = EventVerifier(trusting: [.account: [account.publicKey]])
        let commands = try await TopicSnapshot.read([Topic.profileCommands, Topic.imageCommands], configuration: system.kafka)
            .filter { message in (try? message.event())?.names(any: [victim.uid, victim.imageId]) ?? false }
        let signed = commands.compactMap { message in
            (try? message.event()).flatMap { event in
                (try? verifier.verify(message, type: event.type, from: [.account])).map { "\(event.type) \(event.key)" }
            }
        }
        #expect(Set(signed) == ["StoreAvatar \(victim.registrationId)", "WriteProfile \(victim.registrationId)"],
                "the account worker sent only the victim's own commands (a redelivered step may send one twice)")
        try await system.expectUnchanged(victim)
        #expect(try system.audit().isEmpty)
    }

    /// An event of internal type `kind` under flow id `id` that, if trusted, would harm the victim: it names the
    /// victim's uid or image id, renames, deletes, moves or completes.
    static func forgery(_ kind: Event.Kind, id: String, against victim: Victim) -> Event {
        var renamed = victim.profile
        renamed.name = "Attacker"
        let moved = ProfileEmail(requestId: id, uid: victim.uid, email: "attacker@example.com", step: "awaiting_profile", revision: 4)
        switch kind {
        case .storeAvatar: return .storeAvatar(StoreAvatar(registrationId: id, imageId: victim.imageId, avatar: nil, step: "awaiting_avatar", revision: 1))
        case .deleteAvatar: return .deleteAvatar(DeleteAvatar(registrationId: id, imageId: victim.imageId, step: "compensating", revision: 3))
        case .avatarStored: return .avatarStored(AvatarStored(registrationId: id, imageId: victim.imageId, url: "https://attacker.example/a.jpg"))
        case .avatarRejected: return .avatarRejected(AvatarRejected(registrationId: id, imageId: victim.imageId, reason: .imageCorrupt, message: "forged"))
        case .avatarDeleted: return .avatarDeleted(AvatarDeleted(registrationId: id, imageId: victim.imageId))
        case .avatarWaiting: return .avatarWaiting(AvatarWaiting(registrationId: id, imageId: victim.imageId))
        case .writeProfile: return .writeProfile(WriteProfile(registrationId: id, uid: victim.uid, profile: renamed, step: "awaiting_profile", revision: 2))
        case .deleteProfile: return .deleteProfile(DeleteProfile(registrationId: id, uid: victim.uid, step: "compensating", revision: 3))
        case .profileWritten: return .profileWritten(ProfileWritten(registrationId: id, uid: victim.uid))
        case .profileRejected: return .profileRejected(ProfileRejected(registrationId: id, uid: victim.uid, reason: .profileInvalid, message: "forged"))
        case .profileDeleted: return .profileDeleted(ProfileDeleted(registrationId: id, uid: victim.uid))
        case .profileWaiting: return .profileWaiting(ProfileWaiting(registrationId: id, uid: victim.uid))
        case .registrationCompleted:
            return .registrationCompleted(RegistrationCompleted(registrationId: id, sealedResult: forgedResult(naming: victim.uid, renamed)))
        case .registrationFailed: return .registrationFailed(RegistrationFailed(registrationId: id, reason: .emailTaken, message: "forged"))
        case .codeSent: return .codeSent(CodeSent(requestId: id, purpose: .login, expiresIn: 600))
        case .codeRefused: return .codeRefused(CodeRefused(requestId: id, reason: .codeRateLimited, message: "forged"))
        case .tokenIssued:
            return .tokenIssued(TokenIssued(requestId: id, sealedTokens: forgedResult(naming: victim.uid, renamed), expiresIn: 900, accountCreated: false))
        case .tokenRefused: return .tokenRefused(RequestRefusal(requestId: id, reason: .invalidCredentials, message: "forged"))
        case .profileAnswered: return .profileAnswered(ProfileAnswered(requestId: id, sealedProfile: forgedResult(naming: victim.uid, renamed)))
        case .updateProfileEmail: return .updateProfileEmail(moved)
        case .profileEmailUpdated: return .profileEmailUpdated(moved)
        case .profileEmailRejected: return .profileEmailRejected(ProfileEmailRejected(requestId: id, uid: victim.uid, reason: .emailTaken, message: "forged"))
        case .profileEmailWaiting: return .profileEmailWaiting(ProfileEmailWaiting(requestId: id, uid: victim.uid))
        case .accountChangeCompleted: return .accountChangeCompleted(AccountChangeCompleted(requestId: id, change: .changeEmail))
        case .accountChangeFailed: return .accountChangeFailed(RequestRefusal(requestId: id, reason: .invalidCredentials, message: "forged"))
        case .signedOut: return .signedOut(SignedOut(requestId: id))
        case .sessionsAnswered: return .sessionsAnswered(SessionsAnswered(requestId: id, sealedSessions: forgedResult(naming: victim.uid, renamed)))
        case .exportAnswered: return .exportAnswered(ExportAnswered(requestId: id, sealedExport: forgedResult(naming: victim.uid, renamed)))
        case .eraseAvatar: return .eraseAvatar(EraseAvatar(requestId: id, uid: victim.uid, imageId: victim.imageId, step: "erasing_avatar", revision: 99))
        case .avatarErased: return .avatarErased(AvatarErased(requestId: id, uid: victim.uid, imageId: victim.imageId))
        case .eraseProfile: return .eraseProfile(EraseProfile(requestId: id, uid: victim.uid, step: "erasing_profile", revision: 99))
        case .profileErased: return .profileErased(ProfileErased(requestId: id, uid: victim.uid))
        case .accountDeleted: return .accountDeleted(AccountDeleted(requestId: id))
        case .storeNewAvatar:
            return .storeNewAvatar(StoreNewAvatar(requestId: id, uid: victim.uid, imageId: victim.imageId, avatar: .inline("AAEC"), step: "storing_avatar",
                                                  revision: 99))
        case .newAvatarStored:
            return .newAvatarStored(NewAvatarStored(requestId: id, uid: victim.uid, imageId: victim.imageId, url: "https://attacker.example/a.jpg"))
        case .newAvatarRejected:
            return .newAvatarRejected(NewAvatarRejected(requestId: id, uid: victim.uid, imageId: victim.imageId, reason: .imageCorrupt, message: "forged"))
        case .newAvatarWaiting: return .newAvatarWaiting(ProfileUpdateWaiting(requestId: id, uid: victim.uid, step: "storing_avatar"))
        case .discardAvatar:
            return .discardAvatar(DiscardAvatar(requestId: id, uid: victim.uid, imageId: victim.imageId, step: "discarding_old_avatar", revision: 99))
        case .avatarDiscarded: return .avatarDiscarded(AvatarDiscarded(requestId: id, uid: victim.uid, imageId: victim.imageId))
        case .updateProfile, .profileUpdateApplied:
            let update = ProfileFieldsUpdate(requestId: id, uid: victim.uid, fields: ProfileFields(name: "Attacker", profileImage: "https://attacker.example/a.jpg"),
                                             step: "updating_profile", revision: 99)
            return kind == .updateProfile ? .updateProfile(update) : .profileUpdateApplied(update)
        case .profileUpdateRejected:
            return .profileUpdateRejected(ProfileUpdateRejected(requestId: id, uid: victim.uid, reason: .profileInvalid, message: "forged"))
        case .profileUpdateWaiting: return .profileUpdateWaiting(ProfileUpdateWaiting(requestId: id, uid: victim.uid, step: "updating_profile"))
        case .profileUpdated: return .profileUpdated(ProfileUpdated(requestId: id, sealedProfile: forgedResult(naming: victim.uid, renamed)))
        case .operatorRequested:
            return .operatorRequested(OperatorRequested(requestId: id, action: .delete, email: victim.profile.email, actor: "mallory",
                                                        replyKey: "a2V5", issuedAt: Int(Date().timeIntervalSince1970)))
        case .operatorAnswered: return .operatorAnswered(OperatorAnswered(requestId: id, action: .find, sealedReport: forgedResult(naming: victim.uid, renamed)))
        case .operatorRefused: return .operatorRefused(RequestRefusal(requestId: id, reason: .accountUnknown, message: "forged"))
        case .registrationRequested, .codeRequested, .tokenRequested, .profileRequested, .passwordChangeRequested, .passwordResetRequested,
             .emailChangeRequested, .signOutRequested, .sessionsRequested, .exportRequested, .accountDeletionRequested,
             .profileUpdateRequested:
            preconditionFailure("\(kind) is a client's request, not an internal event")
        }
    }
}
