import Crypto
import Domain
import EventTransport
import Foundation
import Kafka
import Registration
import SignIn
import Testing
import WorkerRuntime

/// A registered user an attack aims at: what must stay as it is.
struct Victim {
    var email: String
    var password: String
    var registrationId: String
    var uid: String
    var imageId: String
    var profile: Profile
    var avatar: [UInt8]

    var avatarKey: String { AvatarStep.key(imageId: imageId) }
}

/// What the attack tests do with an installation: publish forged events as any client can, read the
/// dead letters, and check that a victim's account, profile and avatar are unchanged.
extension TestSystem {
    /// Publishes `event` as a client would, to `topic` (its own topic by default), keyed by its flow id,
    /// signed for that topic by `signer` when given (as a worker, or one who holds its key, would).
    func forge(_ event: Event, on topic: String? = nil, signedBy signer: EventSigner? = nil) async throws {
        let message = OutgoingMessage(event, producer: "attacker")
        let topic = topic ?? event.topic
        let signature = signer?.headers(topic: topic, key: Array(event.key.utf8), type: event.type, payload: message.value) ?? []
        try await client.publish(OutgoingMessage(topic: topic, key: message.key, value: message.value, headers: message.headers + signature))
    }

    /// The signer of `role` with its real event key from the installation's key directory.
    func signer(_ role: WorkerRole) throws -> EventSigner {
        EventSigner(role: role, key: try SigningKeyPair.load(from: EventKeyDirectory(directory + "/keys").secretPath(of: role)))
    }

    /// The dead letter of the message keyed `key` that was published to `topic`; fails after `timeout`.
    func deadLetter(from topic: String, key: String, timeout: Duration = .seconds(60)) async throws -> KafkaMessage {
        let deadline = ContinuousClock.now + timeout
        while true {
            let letters = try await TopicSnapshot.read([Topic.deadLetters(of: topic)], configuration: kafka)
            if let letter = letters.first(where: { $0.keyString == key }) { return letter }
            guard ContinuousClock.now < deadline else { throw HarnessError("no dead letter for \(key) from \(topic) within \(timeout)") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// The first event published on `topic` under `key`, as any client can read it there.
    func published(on topic: String, key: String) async throws -> Event {
        guard let message = try await TopicSnapshot.read([topic], configuration: kafka).first(where: { $0.keyString == key }) else {
            throw HarnessError("nothing published on \(topic) under \(key)")
        }
        return try message.event()
    }

    /// Registers a victim with a password and the default avatar (by default at a mailbox of its own).
    func victim(_ email: String = Attacks.unique("victim") + "@example.com", password: String = "victim password by the quiet river") async throws -> Victim {
        let request = try await request(email: email, password: password, name: "Victim")
        try await publish([request])
        guard case .registrationCompleted(let completed) = try await waitForOutcomes([request.registrationId])[request.registrationId]?.first,
              let saga = try backends.accounts().saga(request.registrationId) else {
            throw HarnessError("the victim's registration did not complete")
        }
        let avatar = try #require(try backends.objects().get(AvatarStep.key(imageId: saga.imageId)))
        let result = try client.open(completed)
        return Victim(email: email, password: password, registrationId: request.registrationId, uid: result.uid,
                      imageId: saga.imageId, profile: result.profile, avatar: avatar)
    }

    /// Expects the victim's account, profile and avatar as registered, and the victim able to sign in.
    func expectUnchanged(_ victim: Victim) async throws {
        let account = try backends.accounts().account(uid: victim.uid)
        #expect(account?.email == victim.email && account?.status == .active)
        #expect(try backends.profiles().profile(uid: victim.uid) == victim.profile)
        #expect(try backends.objects().get(victim.avatarKey) == victim.avatar)
        let (outcome, tokens) = try await signIn(.password, email: victim.email, secret: victim.password)
        guard case .tokenIssued = outcome else { Issue.record("the victim cannot sign in: \(outcome)"); return }
        #expect(tokens?.uid == victim.uid)
    }

    /// Every message published so far on `topic` whose event names one of `ids` (uids, image ids).
    func commands(on topic: String, naming ids: [String]) async throws -> [Event] {
        try await TopicSnapshot.read([topic], configuration: kafka).compactMap { try? $0.event() }.filter { $0.names(any: ids) }
    }
}

extension Event {
    /// Whether this image or profile command names one of `ids` as its uid or image id.
    func names(any ids: [String]) -> Bool {
        switch self {
        case .deleteAvatar(let command): ids.contains(command.imageId)
        case .storeAvatar(let command): ids.contains(command.imageId)
        case .deleteProfile(let command): ids.contains(command.uid)
        case .writeProfile(let command): ids.contains(command.uid)
        case .updateProfileEmail(let command): ids.contains(command.uid)
        case .eraseAvatar(let command): ids.contains(command.imageId) || ids.contains(command.uid)
        case .eraseProfile(let command): ids.contains(command.uid)
        case .storeNewAvatar(let command): ids.contains(command.imageId) || ids.contains(command.uid)
        case .discardAvatar(let command): ids.contains(command.imageId) || ids.contains(command.uid)
        case .updateProfile(let command): ids.contains(command.uid)
        default: false
        }
    }
}
