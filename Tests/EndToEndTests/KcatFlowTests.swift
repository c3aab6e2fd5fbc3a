import Domain
import Foundation
import Support
@testable import TestSupport
import Testing

/// kcat, a client that signs nothing, on the real binaries: the README's public flow (a registration
/// request on `registration.requests`) still completes, while a command it forges on `profile.commands`
/// is dead-lettered `unauthenticated` and the victim's profile stays.
@Suite(.tags(.live), .serialized) struct KcatFlowTests {
    static let kcat = ["/usr/bin/kcat", "/usr/local/bin/kcat"].first(where: FileManager.default.isExecutableFile(atPath:))

    @Test(.enabled(if: kcat != nil, "kcat is not installed"))
    func kcatDrivesAPublicFlowButCannotForgeACommand() async throws {
        let kcat = try #require(Self.kcat)
        try await LiveSystem.shared { system in
            let victim = try await system.victim("kcat-victim@example.com")
            func produce(_ event: Event, on topic: String) throws {
                let produced = try ChildProcess.run(kcat, ["-P", "-b", system.kafka.bootstrapServers, "-t", topic, "-k", event.key],
                                                    input: EventCodec.encode(event) + [UInt8(ascii: "\n")])
                #expect(produced.status == 0)
            }
            let request = try await system.request(email: "kcat@example.com")
            try produce(.registrationRequested(request), on: Topic.registrationRequests)
            guard case .registrationCompleted = try await system.waitForOutcomes([request.registrationId])[request.registrationId]?.first else {
                Issue.record("the registration published with kcat did not complete")
                return
            }
            try produce(.deleteProfile(DeleteProfile(registrationId: "kcat-forged", uid: victim.uid, step: "compensating", revision: 3)), on: Topic.profileCommands)
            let letter = try await system.deadLetter(from: Topic.profileCommands, key: "kcat-forged")
            #expect(letter.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == "unauthenticated")
            try await system.expectUnchanged(victim)
        }
    }
}
