import Backends
import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// Large avatars through the `registrar` CLI and the real worker processes: staged in the object
/// store by claim check, and refused above the limit.
@Suite(.tags(.live), .serialized) struct ClaimCheckTests {
    @Test func largeAvatarsTravelByClaimCheckAndOversizedOnesAreRefused() async throws {
        try await LiveSystem.shared { system in
            // ~3 MB: far above what goes inline in a message, staged in the object store instead.
            let large = try await Fixtures.noiseJPEG(width: 2400, height: 1800)
            #expect(large.count > 1_500_000)
            let avatarPath = system.directory + "/large.jpg"
            try Data(large).write(to: URL(fileURLWithPath: avatarPath))
            let accepted = try await system.registrar(["register", "--email", "large@example.com",
                                                       "--name", "Large", "--avatar", avatarPath, "--registration-id", "large-1"], input: ["long enough password"],
                                                       mailedCode: .register, to: "large@example.com")
            #expect(accepted.status == 0, "\(accepted.output)")
            #expect(accepted.output.contains("completed large-1"))
            // The claim check the CLI sent is an event of the contract too.
            let events = try await system.allTopicMessages().filter { $0.keyString == "large-1" && !$0.topic.hasSuffix(".dlq") }
            #expect(events.contains { String(decoding: $0.value, as: UTF8.self).contains(#""staged":{"#) })
            let (status, report) = try await ContractValidator.validate(events, in: system.directory)
            #expect(status == 0, "\(report.joined(separator: "\n"))")

            let hugePath = system.directory + "/huge.bin"
            try Data(Array(large.prefix(4)) + [UInt8](repeating: 0x42, count: 21 * 1024 * 1024)).write(to: URL(fileURLWithPath: hugePath))
            let refused = try await system.registrar(["register", "--email", "huge@example.com",
                                                      "--name", "Huge", "--avatar", hugePath, "--registration-id", "huge-1"], input: ["long enough password"],
                                                      mailedCode: .register, to: "huge@example.com")
            #expect(refused.status == 1)
            #expect(refused.output.contains("image_too_large"), "\(refused.output)")
            // The staged uploads are gone, and nothing of the refused registration remains.
            #expect(try system.backends.objects().list(prefix: "staging/").isEmpty)
            #expect(try system.backends.accounts().account(email: "huge@example.com") == nil)
            #expect(try system.audit().isEmpty)
            // No message carried the megabytes.
            #expect(try await system.allTopicMessages().allSatisfy { $0.value.count < 512 * 1024 })
        }
    }
}
