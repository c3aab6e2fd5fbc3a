import Crypto
import Domain
import Foundation
import Kafka
import StoreTesting
import Testing
import EventTransport

/// `registrar keys rotate-events`'s rotation in a key directory: after a rotation a consumer loading the
/// role's public keys takes events signed with the new key and with the old one (the overlap); after a
/// second rotation, or once the previous key is retired, the old key is refused.
@Suite struct EventKeyRotationTests {
    static let command = Event.deleteAvatar(DeleteAvatar(registrationId: "reg-1", imageId: "00000000-0000-0000-0000-000000000002"))

    /// Whether a consumer loading `directory`'s image keys now takes the command signed with `key`.
    static func accepts(_ directory: EventKeyDirectory, signedWith key: SigningKeyPair) throws -> Bool {
        let verifier = EventVerifier(trusting: [.image: try directory.publicKeys(of: .image, creatingMissing: false)])
        let outgoing = OutgoingMessage(command, producer: "test", signer: EventSigner(role: .image, key: key))
        let message = KafkaMessage(topic: outgoing.topic, partition: 0, offset: 0, key: outgoing.key, value: outgoing.value,
                                   headers: outgoing.headers)
        return (try? verifier.verify(message, type: command.type, from: [.image])) != nil
    }

    @Test func bothKeysAreAcceptedDuringTheOverlapAndARetiredOneIsRefused() throws {
        try withTemporaryDirectory { path in
            let directory = EventKeyDirectory(path + "/keys")
            try directory.create(WorkerRole.allCases)
            let first = try SigningKeyPair.load(from: directory.secretPath(of: .image))
            #expect(try Self.accepts(directory, signedWith: first))

            let second = try directory.rotate(.image)
            let rotated = try SigningKeyPair.load(from: directory.secretPath(of: .image))
            #expect(rotated.publicKey == second && second != first.publicKey)
            #expect(try Self.accepts(directory, signedWith: rotated), "the new key")
            #expect(try Self.accepts(directory, signedWith: first), "the old key, during the overlap")

            _ = try directory.rotate(.image)
            #expect(try !Self.accepts(directory, signedWith: first), "retired by the second rotation")
            #expect(try Self.accepts(directory, signedWith: rotated))
            #expect(try directory.retirePrevious(of: .image))
            #expect(try !Self.accepts(directory, signedWith: rotated), "retired")
            #expect(try !directory.retirePrevious(of: .image))
            #expect(try FileManager.default.attributesOfItem(atPath: directory.secretPath(of: .image))[.posixPermissions] as? Int == 0o600)
            // Other roles' keys are untouched.
            #expect(try directory.publicKeys(of: .account, creatingMissing: false).count == 1)
        }
    }

    @Test func aKeySetIsNeverCreatedTwice() throws {
        try withTemporaryDirectory { path in
            let directory = EventKeyDirectory(path)
            try directory.create([.profile])
            #expect(throws: CryptoError.self) { try directory.create([.profile]) }
        }
    }
}
