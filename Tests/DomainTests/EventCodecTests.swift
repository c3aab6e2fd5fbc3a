@testable import Domain
import Foundation
import Support
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct EventCodecTests {
    static let samples: [Event] = [
        .registrationRequested(RegistrationRequested(registrationId: "r1", email: "a@example.com", name: "A",
                                                     sealedPassword: "c2VhbGVk", sealedCode: nil, replyKey: "a2V5", avatar: .inline("AAEC"), isMapLocationEnabled: true)),
        .storeAvatar(StoreAvatar(registrationId: "r1", imageId: "i1", avatar: .staged(key: "staging/r1", sha256: "ab", size: 3), step: "awaiting_avatar", revision: 1)),
        .storeAvatar(StoreAvatar(registrationId: "r1", imageId: "i1", avatar: nil, step: "awaiting_avatar", revision: 1)),
        .avatarRejected(AvatarRejected(registrationId: "r1", imageId: "i1", reason: .imageCorrupt, message: "bad")),
        .writeProfile(WriteProfile(registrationId: "r1", uid: "u1",
                                   profile: Profile(name: "A", email: "a@example.com", profileImage: "file:///x.jpg", isMapLocationEnabled: false), step: "awaiting_profile", revision: 2)),
        .registrationFailed(RegistrationFailed(registrationId: "r1", reason: .emailTaken, message: "taken")),
    ]

    @Test(arguments: samples)
    func roundTrips(event: Event) throws {
        let bytes = EventCodec.encode(event)
        #expect(try EventCodec.decode(bytes) == event)
        let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        #expect(object?["type"] as? String == event.type)
        #expect(object?["version"] as? Int == Event.version)
        #expect(object?["registrationId"] as? String == event.registrationId)
    }

    @Test(arguments: [
        ("not json", UndecodableMessage.Kind.notJSON),
        ("[1,2]", .notJSON),
        (#"{"registrationId":"r1"}"#, .missingType),
        (#"{"type":"Nope","version":1}"#, .unknownType),
        (#"{"type":"ProfileWritten","version":99,"registrationId":"r","uid":"u"}"#, .unsupportedVersion),
        (#"{"type":"ProfileWritten","version":"1","registrationId":"r","uid":"u"}"#, .unsupportedVersion),
        (#"{"type":"ProfileWritten","registrationId":"r","uid":"u"}"#, .unsupportedVersion),
        (#"{"type":7,"version":1}"#, .missingType),
        (#"{"type":"ProfileWritten","version":1,"registrationId":"r","uid":"u","extra":true}"#, .invalidFields),
        (#"{"type":"ProfileWritten","version":1,"registrationId":"r"}"#, .invalidFields),
        (#"{"type":"AvatarRejected","version":1,"registrationId":"r","imageId":"i","reason":"no_such_reason","message":"m"}"#, .invalidFields),
    ])
    func refusesWithASpecificReason(text: String, kind: UndecodableMessage.Kind) {
        #expect(throws: UndecodableMessage.self) { try EventCodec.decode(Array(text.utf8)) }
        do {
            _ = try EventCodec.decode(Array(text.utf8))
        } catch {
            #expect(error.kind == kind)
        }
    }

    @Test func namesTheMissingField() {
        do {
            _ = try EventCodec.decode(Array(#"{"type":"ProfileWritten","version":1,"registrationId":"r"}"#.utf8))
            Issue.record("decoded")
        } catch {
            #expect(error.detail.contains("uid"))
        }
    }

    @Test func saysTheVersionMustBeTheIntegerOne() {
        #expect(throws: UndecodableMessage(.unsupportedVersion, #"ProfileWritten: "version" is the string "1", expected the integer 1"#)) {
            try EventCodec.decode(Array(#"{"type":"ProfileWritten","version":"1","registrationId":"r","uid":"u"}"#.utf8))
        }
    }

    @Test func refusesOversizedMessages() {
        let bytes = [UInt8](repeating: 0x20, count: ContractLimits.messageBytes + 1)
        #expect(throws: UndecodableMessage(.tooLarge, "\(bytes.count) bytes, limit \(ContractLimits.messageBytes)")) {
            try EventCodec.decode(bytes)
        }
    }

    /// Seeded fuzzing: random bytes and mutations of valid events (bit flips, cuts, splices) either
    /// decode or are refused with a reason — never a crash. Fixed seeds keep failures repeatable.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func survivesRandomAndMutatedInput(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let valid = Self.samples.map(EventCodec.encode)
        var refused = 0
        for round in 0..<3_000 {
            var bytes: [UInt8]
            if round.isMultiple(of: 4) {
                bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            } else {
                bytes = valid.randomElement(using: &generator)!
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: bytes[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
                    case 1: bytes.removeSubrange(index...)
                    case 2: bytes.insert(contentsOf: valid.randomElement(using: &generator)!.prefix(20), at: index)
                    default: bytes[index] = [0x22, 0x7B, 0x7D, 0x3A, 0x2C, 0x5C, 0x00].randomElement(using: &generator)!
                    }
                    if bytes.isEmpty { break }
                }
            }
            do {
                let event = try EventCodec.decode(bytes)
                #expect(try EventCodec.decode(EventCodec.encode(event)) == event)
            } catch {
                refused += 1
                #expect(!error.detail.isEmpty)
            }
        }
        #expect(refused > 1_000)
    }
}
