import Domain
import Foundation
import Kafka
@testable import TestSupport
import Testing

/// Every code, sign-in and account-change event the workers emit validates against the published
/// JSON Schemas, and no secret (password, code, token) is on any topic or in any log.
@Suite(.tags(.inProcess)) struct SignInContractTests {
    @Test func everyEventValidatesAndNoSecretTravelsInPlaintext() async throws {
        try await InProcessSystem.with(extraArguments: ["code-dispatch-worker": ["--code-cooldown", "0"]]) { system in
            // The workers log to this process's standard error: a copy of it is their log.
            let logCopy = try StandardErrorTee(copyingTo: system.logs + "/workers.log")
            defer { logCopy.stop() }
            let password = "Canary-\(UUID().uuidString.prefix(8))"
            _ = try await system.register("contract@example.com", password: password)
            let registerCode = try await system.code(for: "new-contract@example.com", .register)
            let (_, created) = try await system.signIn(.email, email: "new-contract@example.com", secret: registerCode)
            let (_, session) = try await system.signIn(.password, email: "contract@example.com", secret: password)
            let (_, rotated) = try await system.signIn(.refreshToken, email: nil, secret: try #require(session).refreshToken)
            _ = try await system.signIn(.password, email: "contract@example.com", secret: "wrong password by the quiet river")
            _ = try await system.requestCode("not an email", .login)
            let newPassword = "New-\(password)"
            _ = try await system.send(.passwordChangeRequested(system.client.passwordChange(email: "contract@example.com", password: password,
                newPassword: newPassword, requestId: UUID().uuidString)))
            let changeCode = try await system.code(for: "renamed@example.com", .changeEmail)
            _ = try await system.send(.emailChangeRequested(system.client.emailChange(email: "contract@example.com", password: newPassword,
                newEmail: "renamed@example.com", code: changeCode, requestId: UUID().uuidString)))
            _ = try await system.send(.passwordResetRequested(system.client.passwordReset(email: "renamed@example.com", code: "000000",
                newPassword: newPassword, requestId: UUID().uuidString)))

            let messages = try await system.allTopicMessages().filter { !$0.topic.hasSuffix(".dlq") }
            let types = Set(messages.compactMap { try? EventCodec.decode($0.value).type })
            #expect(types.isSuperset(of: ["CodeRequested", "CodeSent", "CodeRefused", "TokenRequested", "TokenIssued", "TokenRefused",
                                          "PasswordChangeRequested", "PasswordResetRequested", "EmailChangeRequested", "UpdateProfileEmail",
                                          "ProfileEmailUpdated", "AccountChangeCompleted", "AccountChangeFailed"]), "\(types)")
            let (status, report) = try await ContractValidator.validate(messages, in: system.directory)
            #expect(status == 0, "\(report.joined(separator: "\n"))")

            let secrets = [password, newPassword, registerCode, changeCode] + [created, session, rotated].compactMap { $0 }
                .flatMap { [$0.accessToken, $0.refreshToken] }
            logCopy.stop()
            let logs = try FileManager.default.contentsOfDirectory(atPath: system.logs).map { log in
                (log, String(decoding: FileManager.default.contents(atPath: system.logs + "/" + log) ?? Data(), as: UTF8.self))
            }
            #expect(logs.contains { $0.0 == "workers.log" && $0.1.contains("account-worker") }, "the workers' log was captured")
            for secret in secrets {
                for message in messages { #expect(!String(decoding: message.value, as: UTF8.self).contains(secret), "secret on \(message.topic)") }
                for (log, text) in logs { #expect(!text.contains(secret), "secret in \(log)") }
            }
        }
    }
}
