import Domain
import Foundation
import Testing

/// Sign-in through the `registrar` CLI and the real worker processes.
@Suite(.serialized) struct SignInCommandLineTests {
    @Test func theCommandLineRequestsACodeAndSignsIn() async throws {
        try await LiveSystem.shared { system in
            let requested = try await system.registrar(["code", "request", "--email", "cli@example.com", "--purpose", "register",
                                                        "--request-id", "cli-code"])
            #expect(requested.status == 0, "\(requested.output)")
            let code = try system.code(sentBy: "cli-code")
            let login = try await system.registrar(["login", "--email", "cli@example.com", "--code", code])
            #expect(login.status == 0, "\(login.output)")
            #expect(login.output.contains("(account created)") && login.output.contains("refresh_token: "))
            let again = try await system.registrar(["code", "request", "--email", "cli@example.com", "--purpose", "register"])
            #expect(again.status == 1 && again.output.contains("code_rate_limited") && again.output.contains("retry_after: "))
            // Secrets never travel in plaintext: not the code, not the tokens.
            let token = try #require(login.output.split(separator: "\n").first { $0.hasPrefix("refresh_token: ") }).dropFirst(15)
            for message in try await system.allTopicMessages() {
                let text = String(decoding: message.value, as: UTF8.self)
                #expect(!text.contains(code) && !text.contains(token), "secret on \(message.topic)")
            }
        }
    }
}
