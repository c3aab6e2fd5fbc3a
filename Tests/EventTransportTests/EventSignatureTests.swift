import Crypto
import Domain
@testable import EventTransport
import Kafka
@testable import TestSupport
import Testing

/// The event signature: what a worker's signer puts in the headers verifies only for the same topic,
/// key, type and value, under a trusted key of a role the route takes; anything else is refused.
@Suite(.tags(.unit)) struct EventSignatureTests {
    static let account = EventSigner(role: .account, key: .generate())
    static let image = EventSigner(role: .image, key: .generate())
    static let verifier = EventVerifier(trusting: [.account: [account.publicKey], .image: [image.publicKey]])
    static let command = Event.deleteProfile(DeleteProfile(registrationId: "reg-1", uid: "00000000-0000-0000-0000-000000000001", step: "compensating", revision: 3))

    /// `event` as a consumer receives it, signed by `signer` (or not), with `change` applied to the message.
    static func received(_ event: Event = command, signedBy signer: EventSigner? = account,
                         _ change: (inout KafkaMessage) -> Void = { _ in }) -> KafkaMessage {
        let outgoing = OutgoingMessage(event, producer: "test", signer: signer)
        var message = KafkaMessage(topic: outgoing.topic, partition: 0, offset: 0, key: outgoing.key, value: outgoing.value,
                                   headers: outgoing.headers)
        change(&message)
        return message
    }

    static func accepts(_ message: KafkaMessage, from producers: Set<WorkerRole> = [.account]) -> Bool {
        (try? verifier.verify(message, type: Self.command.type, from: producers)) != nil
    }

    @Test func aSignedEventVerifiesFromItsProducer() {
        let message = Self.received()
        #expect(message.header(EventSignature.keyHeader) == Array(Self.account.publicKey.keyID.utf8))
        #expect(Self.accepts(message))
    }

    @Test func anUnsignedEventIsRefused() {
        #expect(!Self.accepts(Self.received(signedBy: nil)))
    }

    @Test func anEventSignedWithAnUnknownKeyIsRefused() {
        #expect(!Self.accepts(Self.received(signedBy: EventSigner(role: .account, key: .generate()))))
    }

    @Test func anEventSignedByARoleTheRouteDoesNotTakeIsRefused() {
        #expect(!Self.accepts(Self.received(signedBy: Self.image)))
        #expect(Self.accepts(Self.received(signedBy: Self.image), from: [.image]))
    }

    @Test func aSignatureMovedToAnotherTopicKeyTypeOrValueIsRefused() throws {
        #expect(!Self.accepts(Self.received { $0.topic = Topic.imageCommands }))
        #expect(!Self.accepts(Self.received { $0.key = Array("reg-2".utf8) }))
        #expect(!Self.accepts(Self.received { $0.value += [0x20] }))
        let message = Self.received()
        #expect(throws: UnauthenticatedEvent.self) {
            try Self.verifier.verify(message, type: Event.Kind.writeProfile.rawValue, from: [.account])
        }
    }

    @Test func aTrustedKeyIdOnAnotherKeysSignatureIsRefused() {
        let forged = Self.received(signedBy: EventSigner(role: .account, key: .generate())) { message in
            message.headers = message.headers.map {
                $0.key == EventSignature.keyHeader ? KafkaHeader(key: $0.key, value: Array(Self.account.publicKey.keyID.utf8)) : $0
            }
        }
        #expect(!Self.accepts(forged))
    }

    @Test func aSecondSignatureHeaderIsRefused() {
        let other = Self.received(signedBy: Self.image).headers.filter { $0.key.hasPrefix(EventSignature.signatureHeader) }
        #expect(!Self.accepts(Self.received { $0.headers += other }))
    }

    @Test func theSignedBytesAreUnambiguous() {
        let split = EventSignature.signedBytes(topic: "ab", key: Array("c".utf8), type: "T", payload: [1])
        let moved = EventSignature.signedBytes(topic: "a", key: Array("bc".utf8), type: "T", payload: [1])
        #expect(split != moved)
        #expect(split.starts(with: Array("registrar-event-signature".utf8) + [1, 0, 0, 0, 2] + Array("ab".utf8)))
    }
}
