import Foundation
import Testing
@testable import Domain

@Suite struct EventCodecTests {
    static let samples: [Event] = [
        .registrationRequested(RegistrationRequested(registrationId: "r1", email: "a@example.com", name: "A",
                                                     sealedPassword: "c2VhbGVk", avatar: .inline("AAEC"), isMapLocationEnabled: true)),
        .storeAvatar(StoreAvatar(registrationId: "r1", imageId: "i1", avatar: .staged(key: "staging/r1", sha256: "ab", size: 3))),
        .storeAvatar(StoreAvatar(registrationId: "r1", imageId: "i1", avatar: nil)),
        .avatarRejected(AvatarRejected(registrationId: "r1", imageId: "i1", reason: .imageCorrupt, message: "bad")),
        .writeProfile(WriteProfile(registrationId: "r1", uid: "u1",
                                   profile: Profile(name: "A", email: "a@example.com", profileImage: "file:///x.jpg", isMapLocationEnabled: false))),
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

    @Test func refusesOversizedMessages() {
        let bytes = [UInt8](repeating: 0x20, count: EventCodec.maximumMessageBytes + 1)
        #expect(throws: UndecodableMessage(.tooLarge, "\(bytes.count) bytes, limit \(EventCodec.maximumMessageBytes)")) {
            try EventCodec.decode(bytes)
        }
    }

    @Test func survivesRandomBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...200, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? EventCodec.decode(bytes)
        }
    }
}
