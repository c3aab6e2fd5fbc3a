import Domain
import Foundation
import Kafka
import Registration
@testable import TestSupport
import Testing

/// Passwords never travel or rest in plaintext: not in any topic's bytes, not in any log line.
@Suite(.tags(.live), .serialized) struct SecretsTests {
    @Test func thePasswordAppearsInNoTopicAndNoLog() async throws {
        try await LiveSystem.shared { system in
            let password = "Pl41ntext-Canary-\(UUID().uuidString.prefix(8))"
            let result = try await system.registrar(["register", "--email", "secret@example.com",
                                                     "--name", "Secretive", "--registration-id", "secret-1"], input: [password],
                                                     mailedCode: .register, to: "secret@example.com")
            #expect(result.status == 0, "\(result.output)")
            let failing = try await system.registrar(["register", "--email", "secret@example.com",
                                                      "--name", "Again", "--registration-id", "secret-2"], input: [password],
                                                      mailedCode: .register, to: "secret@example.com")
            #expect(failing.status == 1)

            let canary = Array(password.utf8)
            let messages = try await system.allTopicMessages()
            #expect(messages.count >= 6)
            for message in messages {
                let bytes = message.value + (message.key ?? []) + message.headers.flatMap { Array($0.key.utf8) + ($0.value ?? []) }
                #expect(!contains(bytes, canary), "password in \(message.topic)")
                #expect(!contains(bytes, Array(Data(canary).base64EncodedString().utf8)), "base64 password in \(message.topic)")
            }
            for log in try FileManager.default.contentsOfDirectory(atPath: system.logs) {
                let text = try #require(FileManager.default.contents(atPath: system.logs + "/" + log))
                #expect(!contains(Array(text), canary), "password in \(log)")
            }
        }
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
