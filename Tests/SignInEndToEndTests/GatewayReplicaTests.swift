import Foundation
@testable import TestSupport
import Testing

/// Idempotency across gateway replicas and restarts: two `registrar gateway` processes sharing one reply key file
/// answer a retried POST with the same `Idempotency-Key` once (the workers' answer memo under the request id the key
/// and the request derive); a guessed key with another body never gets someone else's answer.
@Suite(.tags(.live), .serialized) struct GatewayReplicaTests {
    @Test func aRetryThroughAnotherReplicaOrAfterARestartIsAnsweredOnce() async throws {
        try await LiveSystem.shared { system in
            let email = "replica-\(UUID().uuidString.prefix(8))@example.com".lowercased()
            _ = try await system.register(email, password: "replica passphrase")
            let keyFile = ["--reply-key-file", system.directory + "/gateway-reply-\(UUID().uuidString.prefix(8)).key"]
            let grant = [("grant_type", "password"), ("username", email), ("password", "replica passphrase")]
            let key = ["-H", "Idempotency-Key: replica-\(UUID().uuidString.prefix(8))"]
            let codeKey = ["-H", "Idempotency-Key: code-\(UUID().uuidString.prefix(8))"]
            let first = try await GatewayProcess(for: system, arguments: keyFile)
            let second = try await GatewayProcess(for: system, arguments: keyFile)
            var answered = ""
            do {
                let issued = try await first.postForm("/oauth/token", grant, GatewayAccountTests.basic + key)
                let token = try #require(GatewayProcess.json(issued)["access_token"] as? String, "\(issued.body)")
                let retried = try await second.postForm("/oauth/token", grant, GatewayAccountTests.basic + key)
                #expect(retried.status == 200 && retried.body == issued.body, "\(retried.body)")
                answered = issued.body

                // The same key with another body, on a replica that saw the key: another request, refused on its own, no tokens.
                let guessed = try await second.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", "x")],
                                                        GatewayAccountTests.basic + key)
                #expect(guessed.status == 400 && !guessed.body.contains(token), "\(guessed.body)")

                // A code request retried through the other replica: one code sent, not the cooldown's 429.
                let code = try await first.postForm("/email/getCode", [("emailAddress", email), ("type", "2")], codeKey)
                let codeAgain = try await second.postForm("/email/getCode", [("emailAddress", email), ("type", "2")], codeKey)
                #expect(code.status == 200 && codeAgain.status == 200 && code.body == codeAgain.body, "\(codeAgain.body)")
                let id = try #require(GatewayProcess.json(code)["requestId"] as? String)
                #expect(try system.emails(kind: "code").filter { $0.contains("code.\(id)@") }.count == 1)
            } catch {
                await first.stop()
                await second.stop()
                throw error
            }
            await first.stop()
            await second.stop()

            // A replica that has not seen the key: the same key with another body (a wrong password) is another
            // request, refused on its own merits, no tokens.
            try await GatewayProcess.with(system, arguments: keyFile) { stranger in
                let guessed = try await stranger.postForm("/oauth/token", [("grant_type", "password"), ("username", email), ("password", "a guess")],
                                                          GatewayAccountTests.basic + key)
                #expect(guessed.status == 400 && GatewayProcess.json(guessed)["error"] as? String == "invalid_grant", "\(guessed.body)")
                #expect(!guessed.body.contains("access_token"))
            }
            // Restarted: the retry is still the first answer.
            try await GatewayProcess.with(system, arguments: keyFile) { restarted in
                let retried = try await restarted.postForm("/oauth/token", grant, GatewayAccountTests.basic + key)
                #expect(retried.status == 200 && retried.body == answered, "\(retried.body)")
                // Another key is another sign-in: new tokens.
                let fresh = try await restarted.postForm("/oauth/token", grant, GatewayAccountTests.basic + ["-H", "Idempotency-Key: fresh-\(UUID().uuidString.prefix(8))"])
                #expect(fresh.status == 200 && fresh.body != answered)
            }
        }
    }
}
