import Domain
import Foundation
@testable import TestSupport
import Testing

/// Code emails through the real code dispatch worker configured with `--mail smtp://…`, delivered to
/// a real SMTP server (aiosmtpd) and read back from what it received.
@Suite(.tags(.live), .serialized) struct SMTPDeliveryTests {
    @Test func aCodeIsDeliveredBySMTP() async throws {
        let server = try SMTPServer()
        try await LiveSystem.with(workers: ["code-dispatch-worker"], extraArguments: Self.mail(to: server)) { system in
            guard case .codeSent = try await system.requestCode("smtp@example.com", .login, id: "smtp-1") else {
                Issue.record("code not sent")
                return
            }
            let messages = try server.messages()
            #expect(messages.count == 1)
            #expect(messages.first?.contains("Message-ID: <code.smtp-1@registrar.local>") == true)
            #expect(messages.first.flatMap(LiveSystem.code(in:)) != nil)
            #expect(!FileManager.default.fileExists(atPath: system.directory + "/outbox/code.smtp-1@registrar.local.eml"))
        }
    }

    @Test func aServerRefusingThenAcceptingDeliversTheCodeOnce() async throws {
        let server = try SMTPServer()
        server.stop()
        try await LiveSystem.with(workers: ["code-dispatch-worker"], extraArguments: Self.mail(to: server)) { system in
            // The server comes back once the worker has failed to reach it — at its start (it waits there for its
            // mail server) or at a send (it retries the transient failure with back-off) — and the code is delivered.
            let restart = Task {
                try await system.waitForLog(of: "code-dispatch-worker", containing: "mail deferred", "cannot start yet")
                try server.start()
            }
            defer { restart.cancel() }
            let outcome = try await system.requestCode("later@example.com", .login, id: "smtp-2")
            try await restart.value
            guard case .codeSent = outcome else {
                Issue.record("code not sent after the server came back: \(outcome)")
                return
            }
            #expect(try server.messages().count == 1)
        }
    }

    private static func mail(to server: SMTPServer) -> [String: [String]] {
        ["code-dispatch-worker": ["--mail", "smtp://127.0.0.1:\(server.port)?tls=none&connect-timeout=2&timeout=10"]]
    }
}
