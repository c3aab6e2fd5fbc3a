import Domain
import Foundation
@testable import TestSupport
import Testing

/// A client of another make seals as the contract documents (`contract/seal_example.py`, PyNaCl's `SealedBox`),
/// and the account worker accepts it.
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
            let victim = try await system.victim("outsider@example.com", password: "outside password")
            let id = UUID().uuidString
            let context = SealContext(requestId: id, email: victim.email, replyKey: system.client.replyKey)
            let sealed = try Self.pythonSeal(victim.password, publicKey: system.publicKey.base64, purpose: .signInPassword, context: context)
            let outcome = try await system.send(.tokenRequested(TokenRequested(requestId: id, grantType: .password, email: victim.email,
                                                                               sealedCredential: sealed, replyKey: context.replyKey)))
            guard case .tokenIssued = outcome else { Issue.record("the worker refused the PyNaCl seal: \(outcome)"); return }
            let copied = try await system.send(.tokenRequested(TokenRequested(
                requestId: UUID().uuidString, grantType: .password, email: victim.email, sealedCredential: sealed, replyKey: context.replyKey)))
            #expect(reason(copied) == .invalidCredentials, "the same seal in another request")
        }
    }
}
