import Domain
import Foundation
import EventTransport
import Kafka
import Support
@testable import TestSupport
import Testing

/// A client of another make seals as the contract documents (`contract/seal_example.py`, PyNaCl's `SealedBox`),
/// and the account worker accepts it; it takes the outcome as the contract documents (`contract/outcome_example.py`:
/// the answering worker's signature verified, the answer opened with its own reply key and naming its request).
@Suite(.tags(.inProcess)) struct OutsideClientTests {
    /// `secret` sealed by the contract's Python example for one field of one request.
    static func pythonSeal(_ secret: String, publicKey: String, purpose: SealedSecret.Purpose, context: SealContext) throws -> String {
        let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)").path
        try Data(secret.utf8).write(to: URL(fileURLWithPath: secretFile))
        defer { try? FileManager.default.removeItem(atPath: secretFile) }
        let arguments = [ContractSchema.directory + "/seal_example.py", publicKey, purpose.rawValue, context.requestId,
                         context.email ?? "-", context.replyKey].map { "'\($0)'" }.joined(separator: " ")
        return try runCommand("/bin/sh", ["-c", "/usr/bin/python3 \(arguments) < '\(secretFile)'"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aPasswordSealedWithPyNaClSignsIn() async throws {
        try await InProcessSystem.with { system in
            let victim = try await system.victim("outsider@example.com", password: "outside password by the quiet river")
            let id = UUID().uuidString
            let context = SealContext(requestId: id, email: victim.email, replyKey: system.client.replyKey(for: id))
            let sealed = try Self.pythonSeal(victim.password, publicKey: system.publicKey.base64, purpose: .signInPassword, context: context)
            let outcome = try await system.send(.tokenRequested(TokenRequested(requestId: id, grantType: .password, email: victim.email,
                                                                               sealedCredential: sealed, replyKey: context.replyKey)))
            guard case .tokenIssued = outcome else { Issue.record("the worker refused the PyNaCl seal: \(outcome)"); return }
            let copied = try await system.send(.tokenRequested(TokenRequested(
                requestId: UUID().uuidString, grantType: .password, email: victim.email, sealedCredential: sealed, replyKey: context.replyKey)))
            #expect(reason(copied) == .invalidCredentials, "the same seal in another request")
        }
    }

    /// Runs the contract's outcome example with `arguments`, `input` on its standard input; its exit status and output.
    static func outcomeExample(_ arguments: [String], input: [UInt8] = []) throws -> (status: Int32, output: String) {
        let (status, output) = try ChildProcess.run("/usr/bin/python3", [ContractSchema.directory + "/outcome_example.py"] + arguments, input: input)
        return (status, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func anOutsideClientTakesOnlyItsGenuineAnswer() async throws {
        try await InProcessSystem.with { system in
            let victim = try await system.victim("outside-reader@example.com", password: "outside reader password")
            let pair = try Self.outcomeExample(["keypair"]).output.split(separator: "\n").map(String.init)
            let (privateKey, replyKey) = (pair[0], pair[1])
            let id = UUID().uuidString
            let sealed = system.publicKey.sealedBase64(victim.password, for: .signInPassword,
                                                       in: SealContext(requestId: id, email: victim.email, replyKey: replyKey))
            guard case .tokenIssued = try await system.send(.tokenRequested(TokenRequested(requestId: id, grantType: .password, email: victim.email,
                                                                                          sealedCredential: sealed, replyKey: replyKey))) else {
                Issue.record("the sign-in failed")
                return
            }
            let message = try #require(try await TopicSnapshot.read([Topic.authOutcomes], configuration: system.kafka).first { $0.keyString == id })
            let headers = String(decoding: try JSONSerialization.data(withJSONObject: message.headers.map {
                [$0.key, String(decoding: $0.value ?? [], as: UTF8.self)]
            }), as: UTF8.self)
            func take(_ value: [UInt8], id: String = id, headers: String = headers, key: String = privateKey) throws -> (status: Int32, output: String) {
                try Self.outcomeExample(["open", system.directory + "/keys", key, id, Topic.authOutcomes, headers], input: value)
            }
            let genuine = try take(message.value)
            #expect(genuine.status == 0, "\(genuine.output)")
            let opened = (try JSONSerialization.jsonObject(with: Data(genuine.output.utf8)) as? [String: Any])?["opened"] as? [String: Any]
            #expect(opened?["uid"] as? String == victim.uid && opened?["requestId"] as? String == id)
            // Anything else is refused: changed, unsigned, another request's, opened with another key.
            let changed = Array(String(decoding: message.value, as: UTF8.self).replacingOccurrences(of: "\"accountCreated\":false",
                                                                                                   with: "\"accountCreated\":true").utf8)
            #expect(changed != message.value)
            let refusals = [try take(changed), try take(message.value, headers: "[]"), try take(message.value, id: "another"),
                            try take(message.value, key: Self.outcomeExample(["keypair"]).output.split(separator: "\n").map(String.init)[0])]
            for refusal in refusals { #expect(refusal.status == 1 && refusal.output.hasPrefix("refused:"), "\(refusal.output)") }
        }
    }
}
