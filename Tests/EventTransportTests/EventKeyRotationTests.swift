import Crypto
import Domain
import EventTransport
import Foundation
import Kafka
@testable import TestSupport
import Testing

/// `registrar keys rotate-events`'s rotation in a key directory: after a rotation a consumer loading the
/// role's public keys takes events signed with the new key and with the old one (the overlap); after a
/// second rotation, or once the previous key is retired, the old key is refused — also by a consumer that
/// read the keys before the rotation and kept running (it re-reads the files).
@Suite(.tags(.unit)) struct EventKeyRotationTests {
    static let command = Event.deleteAvatar(DeleteAvatar(registrationId: "reg-1", imageId: "00000000-0000-0000-0000-000000000002", step: "compensating", revision: 3))

    /// Whether a consumer takes the command signed with `key`: one loading `directory`'s image keys now, or
    /// (`running`) one that has read them since before the rotations, as a running worker does.
    static func accepts(_ directory: EventKeyDirectory, signedWith key: SigningKeyPair, running: EventVerifier?) throws -> Bool {
        let verifier = try running ?? EventVerifier(trusting: [.image: try directory.publicKeys(of: .image, creatingMissing: false)])
        let outgoing = OutgoingMessage(command, producer: "test", signer: EventSigner(role: .image, key: key))
        let message = KafkaMessage(topic: outgoing.topic, partition: 0, offset: 0, key: outgoing.key, value: outgoing.value,
                                   headers: outgoing.headers)
        return (try? verifier.verify(message, type: command.type, from: [.image])) != nil
    }

    @Test(arguments: [false, true])
    func bothKeysAreAcceptedDuringTheOverlapAndARetiredOneIsRefused(byARunningConsumer: Bool) throws {
        try withTemporaryDirectory { path in
            let directory = EventKeyDirectory(path + "/keys")
            try directory.create(WorkerRole.allCases)
            let running = byARunningConsumer
                ? EventVerifier(roles: [.image], keys: { [keys = try directory.reloadingPublicKeys(of: .image, creatingMissing: false)] _ in keys() })
                : nil
            func accepts(_ key: SigningKeyPair) throws -> Bool { try Self.accepts(directory, signedWith: key, running: running) }
            let first = try SigningKeyPair.load(from: directory.secretPath(of: .image))
            #expect(try accepts(first))

            let second = try directory.rotate(.image)
            let rotated = try SigningKeyPair.load(from: directory.secretPath(of: .image))
            #expect(rotated.publicKey == second && second != first.publicKey)
            #expect(try accepts(rotated), "the new key")
            #expect(try accepts(first), "the old key, during the overlap")

            _ = try directory.rotate(.image)
            #expect(try !accepts(first), "retired by the second rotation")
            #expect(try accepts(rotated))
            #expect(try directory.retirePrevious(of: .image))
            #expect(try !accepts(rotated), "retired")
            #expect(try !directory.retirePrevious(of: .image))
            #expect(try FileManager.default.attributesOfItem(atPath: directory.secretPath(of: .image))[.posixPermissions] as? Int == 0o600)
            // Other roles' keys are untouched.
            #expect(try directory.publicKeys(of: .account, creatingMissing: false).count == 1)
        }
    }

    /// A blank previous key file (the systemd units' default when there is no previous key) is no previous key; anything
    /// else there must be a key.
    @Test func aBlankPreviousKeyFileIsNone() throws {
        try withTemporaryDirectory { path in
            let directory = EventKeyDirectory(path)
            try directory.create([.image])
            try "\n".write(toFile: directory.previousPath(of: .image), atomically: true, encoding: .utf8)
            #expect(try directory.publicKeys(of: .image, creatingMissing: false).count == 1)
            #expect(try directory.reloadingPublicKeys(of: .image, creatingMissing: false)().count == 1)
            try "not a key\n".write(toFile: directory.previousPath(of: .image), atomically: true, encoding: .utf8)
            #expect(throws: (any Error).self) { try directory.publicKeys(of: .image, creatingMissing: false) }
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
