import Crypto
import Domain
import EventTransport
import Foundation
import Kafka
import RegistrarClient
import Support
@testable import TestSupport
import Testing
import WorkerAssembly

/// `account.events` (issue 26 point 5) through the real workers in process: each change of an account announces itself
/// once, signed by the role that publishes its type, naming no personal data; an event committed with its change comes
/// out after the worker stopped before relaying it, and one relayed again keeps its id; a forged event is refused by the
/// client helper and by the README's consumer example.
@Suite(.tags(.inProcess)) struct AccountEventsTests {
    static let password = "announced quartz lantern 42"
    static let secondPassword = "announced second lantern 43"
    static let thirdPassword = "announced third lantern 44"

    @Test func eachChangeAnnouncesOneSignedEventThatNamesNoPersonalData() async throws {
        try await InProcessSystem.with { system in
            let (email, newEmail, name) = ("announced-ada@example.com", "announced-ada@new.example", "Ada Announced")
            let uid = try await Self.register(email, name: name, on: system)
            var hashes = [try Self.passwordHash(of: uid, on: system)]
            #expect(try await system.accountEvents(of: uid, count: 2).map(\.type) == [.accountRegistered, .emailVerified])

            let change = system.client.passwordChange(email: email, password: Self.password, newPassword: Self.secondPassword,
                                                      requestId: UUID().uuidString)
            guard case .accountChangeCompleted = try await system.send(.passwordChangeRequested(change)) else { Issue.record("change refused"); return }
            hashes.append(try Self.passwordHash(of: uid, on: system))
            #expect(try await system.accountEvents(of: uid, count: 3).last?.type == .passwordChanged)

            let resetCode = try await system.code(for: email, .resetPassword)
            let reset = system.client.passwordReset(email: email, code: resetCode, newPassword: Self.thirdPassword, requestId: UUID().uuidString)
            guard case .accountChangeCompleted = try await system.send(.passwordResetRequested(reset)) else { Issue.record("reset refused"); return }
            hashes.append(try Self.passwordHash(of: uid, on: system))
            #expect(try await system.accountEvents(of: uid, count: 4).last?.type == .passwordChanged)

            let changeCode = try await system.code(for: newEmail, .changeEmail)
            let move = system.client.emailChange(email: email, password: Self.thirdPassword, newEmail: newEmail, code: changeCode,
                                                 requestId: UUID().uuidString)
            guard case .accountChangeCompleted = try await system.send(.emailChangeRequested(move)) else { Issue.record("email change refused"); return }
            // The account worker announces the account's new address, the profile worker its profile's.
            #expect(Set(try await system.accountEvents(of: uid, count: 6).suffix(2).map(\.type)) == [.emailChanged, .profileUpdated])

            // The profile update (PATCH /me) announces the fields it changed, by name.
            let tokens = try #require(try await system.signIn(.password, email: newEmail, secret: Self.thirdPassword).1)
            let update = try system.client.profileUpdate(accessToken: tokens.accessToken, name: "Ada Renamed", isMapLocationEnabled: true)
            guard case .profileUpdated = try await system.send(.profileUpdateRequested(update)) else { Issue.record("update refused"); return }
            let updated = try await system.accountEvents(of: uid, count: 7).last
            #expect(updated?.type == .profileUpdated && updated?.changed == [.isMapLocationEnabled, .name], "\(String(describing: updated))")

            let deletion = system.client.deletion(accessToken: tokens.accessToken, proof: .password(Self.thirdPassword))
            guard case .accountDeleted = try await system.send(.accountDeletionRequested(deletion)) else { Issue.record("deletion refused"); return }
            let events = try await system.accountEvents(of: uid, count: 8)
            #expect(events.last?.type == .accountDeleted)

            // Nothing more comes: each change was announced once, and every outbox is empty.
            try await Task.sleep(for: .seconds(2))
            let messages = try await system.accountEventMessages(of: uid)
            #expect(messages.count == 8 && Set(events.map(\.eventId)).count == 8, "\(events.map(\.type))")
            #expect(try system.backends.options.accountOutbox().pending(limit: 100).isEmpty)
            #expect(try system.backends.options.profileOutbox().pending(limit: 100).isEmpty)
            let announced = events.map { "\($0.type.rawValue) \($0.changed.map(\.rawValue))" }.sorted()
            #expect(announced == ["AccountDeleted []", "AccountRegistered []", "EmailChanged [\"email\"]", "EmailVerified []",
                                  "PasswordChanged [\"password\"]", "PasswordChanged [\"password\"]", "ProfileUpdated [\"email\"]",
                                  "ProfileUpdated [\"isMapLocationEnabled\", \"name\"]"])
            #expect(events.allSatisfy { $0.uid == uid && $0.version == 1 && abs($0.occurredAt.timeIntervalSince(system.now)) < 600 })

            // No address, name, password or hash in any byte of any message: value, key or header.
            let texts = messages.map { message in
                ([message.value, message.key ?? []] + message.headers.map { Array($0.key.utf8) + ($0.value ?? []) })
                    .map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
            }
            for secret in [email, newEmail, "announced-ada", name, "Ada Renamed", Self.password, Self.secondPassword, Self.thirdPassword] + hashes {
                #expect(!texts.contains { $0.localizedCaseInsensitiveContains(secret) }, "\(secret) appears on account.events")
            }
            let (status, report) = try await ContractValidator.validate(messages, in: system.directory)
            #expect(status == 0 && report.last == "8 events checked, 0 invalid", "\(report.joined(separator: "\n"))")
        }
    }

    /// The account worker stops after the change committed and before its event left (the broker refused the topic
    /// meanwhile): the event waits in the outbox, and the restarted worker publishes it, once. A crash between the
    /// broker's acknowledgement and the removal (the row left in place) publishes it again under the same id, which a
    /// consumer drops.
    @Test func anEventCommittedBeforeAStopComesOutAfterTheRestartAndARepublicationKeepsItsId() async throws {
        try await InProcessSystem.with { system in
            system.cluster.setTopicError(Topic.accountEvents, error: Self.topicAuthorizationFailed)
            let uid = try await system.register("announced-crash@example.com", password: Self.password)
            let outbox = try system.backends.options.accountOutbox()
            let kept = try outbox.pending(limit: 100).filter { $0.key == uid }
            #expect(kept.map(\.type) == ["AccountRegistered", "EmailVerified"])
            try await system.hold(AccountWorker.name)
            system.cluster.setTopicError(Topic.accountEvents, error: 0)
            #expect(try await system.accountEventMessages(of: uid).isEmpty, "the event left before the stop")

            try await system.resume(AccountWorker.name)
            let events = try await system.accountEvents(of: uid, count: 2)
            #expect(Set(events.map(\.eventId)) == Set(kept.compactMap { AccountEvent(decoding: $0.payload)?.eventId }))
            try await Task.sleep(for: .seconds(1))
            let published = try await system.accountEventMessages(of: uid)
            #expect(published.count == 2, "published once each")
            #expect(try outbox.pending(limit: 100).filter { $0.key == uid }.isEmpty)

            let first = try #require(published.first)
            let payload = String(decoding: first.value, as: UTF8.self).replacingOccurrences(of: "'", with: "''")
            try await system.backends.executeOnAccounts("INSERT INTO account_outbox (topic, message_key, type, payload) "
                                                        + "VALUES ('\(Topic.accountEvents)', '\(uid)', 'AccountRegistered', '\(payload)')", logs: system.logs)
            let deadline = ContinuousClock.now + .seconds(30)
            while try await system.accountEventMessages(of: uid).count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(200)) }
            let again = try await system.accountEventMessages(of: uid)
            #expect(again.count == 3 && again.last?.value == first.value, "the same event, byte for byte")
            let taken = try await system.accountEvents(of: uid, count: 2)
            #expect(Set(taken.map(\.eventId)).count == 2, "a consumer dropping seen ids takes each event once")
        }
    }

    /// Anyone who can reach the topic may publish to it: unsigned, signed by another role's key or by a key of their own
    /// under the account role's key id, or a genuine event with its uid changed. The client helper and the README's
    /// consumer example take the genuine events only.
    @Test func aForgedEventIsRefusedByTheClientHelperAndTheConsumerExample() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("announced-victim@example.com", password: Self.password)
            _ = try await system.accountEvents(of: uid, count: 2)
            let genuine = try await system.accountEventMessages(of: uid)
            let keys = EventKeyDirectory(system.keysDirectory)
            let accountKey = try SigningKeyPair.load(from: keys.secretPath(of: .account))
            let deleted = AccountEvent(.accountDeleted, uid: uid, at: system.now).message
            let imageSigned = OutgoingMessage(deleted, producer: "image-worker",
                                              signer: EventSigner(role: .image, key: try SigningKeyPair.load(from: keys.secretPath(of: .image))))
            var attackerSigned = OutgoingMessage(deleted, producer: "account-worker", signer: EventSigner(role: .account, key: .generate()))
            attackerSigned.headers = attackerSigned.headers.map {
                $0.key == EventSignature.keyHeader ? KafkaHeader(key: $0.key, value: accountKey.publicKey.keyID) : $0
            }
            let original = try #require(genuine.first)
            var otherUid = OutgoingMessage(topic: Topic.accountEvents, key: "someone-else", value: Array(String(decoding: original.value, as: UTF8.self)
                .replacingOccurrences(of: uid, with: "someone-else").utf8), headers: original.headers)
            otherUid.key = Array("someone-else".utf8)
            let unsigned = OutgoingMessage(topic: Topic.accountEvents, key: uid, value: deleted.payload,
                                           headers: [KafkaHeader(key: EventHeader.type, value: "AccountDeleted")])
            for forged in [unsigned, imageSigned, attackerSigned, otherUid] { try await system.client.publish(forged) }

            let verifier = try EventVerifier.accountEvents(keysDirectory: system.keysDirectory)
            var read: [KafkaMessage] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while read.count < genuine.count + 4, ContinuousClock.now < deadline {
                read = try await TopicSnapshot.read([Topic.accountEvents], configuration: system.kafka)
                    .filter { [uid, "someone-else"].contains($0.keyString ?? "") }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(read.count == genuine.count + 4)
            for message in read {
                let isGenuine = genuine.contains { $0.value == message.value && $0.headers == message.headers && $0.key == message.key }
                let taken = (try? verifier.accountEvent(message)) != nil
                #expect(taken == isGenuine, "the client helper on \(String(decoding: message.value, as: UTF8.self))")
                let example = try Self.consumerExample(check: message, keys: system.keysDirectory)
                #expect((example.status == 0) == isGenuine, "the consumer example: \(example.output)")
                if !isGenuine { #expect(example.output.hasPrefix("refused: "), "\(example.output)") }
            }
            #expect(try system.backends.accounts().account(uid: uid)?.status == .active, "nothing happened to the account")
        }
    }

    /// Kafka's TOPIC_AUTHORIZATION_FAILED: the broker takes nothing on the topic, at once.
    static let topicAuthorizationFailed: Int32 = 29

    /// Registers `email` with the name `name` and returns its uid.
    static func register(_ email: String, name: String, on system: InProcessSystem) async throws -> String {
        let request = try await system.request(email: email, password: password, name: name)
        guard case .completed(let completed) = try system.sealing.registrationOutcome(try await system.send(.registrationRequested(request),
                                                                                                                  timeout: .seconds(90))) else {
            throw HarnessError("the registration of \(email) failed")
        }
        return completed.uid
    }

    static func passwordHash(of uid: String, on system: InProcessSystem) throws -> String {
        try #require(try system.backends.accounts().account(uid: uid)).passwordHash
    }

    /// The README's consumer example's verdict on `message` (`account_events_example.py check`): its status and output.
    static func consumerExample(check message: KafkaMessage, keys: String) throws -> (status: Int32, output: String) {
        let headers = String(decoding: try JSONSerialization.data(withJSONObject: message.headers.map {
            [$0.key, String(decoding: $0.value ?? [], as: UTF8.self)]
        }), as: UTF8.self)
        let (status, output) = try ChildProcess.run("/usr/bin/python3", [ContractSchema.directory + "/account_events_example.py", "check", keys,
                                                                        message.topic, message.keyString ?? "", headers], input: message.value)
        return (status, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
