import Domain
import Foundation
import Support
@testable import TestSupport
import Testing

/// The HTTPS edge, `registrar gateway`, in front of the real workers: the apps' own request shapes
/// replayed with curl, an OAuth 2.0 client library no one here wrote, and every refusal specific
/// and without effect.
@Suite(.tags(.live), .serialized) struct GatewayEdgeTests {
    static func certificate(in system: LiveSystem) throws -> (certificate: String, key: String) {
        try makeSelfSignedCertificate(in: system.directory)
    }

    @Test func theAppsOwnRequestsGetACodeAndSignInWithIt() async throws {
        try await LiveSystem.shared { system in
            try await GatewayProcess.with(system, tls: try Self.certificate(in: system)) { gateway in
                let email = "app-\(UUID().uuidString.prefix(8))@example.com"
                let sent = try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "1")])
                #expect(sent.status == 200, "\(sent.body)")
                #expect(sent.header("Strict-Transport-Security") != nil && sent.header("X-Content-Type-Options") == "nosniff")
                let requestId = try #require(GatewayProcess.json(sent)["requestId"] as? String)
                let code = try system.code(sentBy: requestId)
                // The cooldown: the outstanding code of the same purpose is mailed again only after it, the wait said.
                let again = try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "1")])
                #expect(again.status == 429 && Int(again.header("Retry-After") ?? "") != nil, "\(again.body)")
                let token = try await gateway.postForm("/oauth/token", [
                    ("email", email), ("code", code), ("client_id", GatewayProcess.clientID),
                    ("client_secret", GatewayProcess.clientSecret), ("version", "1"), ("grant_type", "email"),
                ])
                #expect(token.status == 200, "\(token.body)")
                #expect(token.header("Cache-Control") == "no-store" && token.header("Pragma") == "no-cache")
                let answer = GatewayProcess.json(token)
                let access = try #require(answer["access_token"] as? String)
                let refresh = try #require(answer["refresh_token"] as? String)
                #expect(access.split(separator: ".").count == 3 && answer["token_type"] as? String == "Bearer")
                #expect((answer["expires_in"] as? Int ?? 0) > 0)
                // Another purpose, sent as JSON, has a code of its own.
                let json = try await gateway.curl("/email/getCode", ["-H", "Content-Type: application/json",
                                                                     "--data", #"{"emailAddress":"\#(email)","type":2}"#])
                #expect(json.status == 200 && GatewayProcess.json(json)["purpose"] as? String == "login", "\(json.body)")
                // An address no account has gets the same answer as one that has an account.
                let unknown = try await gateway.postForm("/email/getCode", [("emailAddress", "nobody-\(UUID().uuidString.prefix(8))@example.com"), ("type", "2")])
                #expect(unknown.status == 200 && Set(GatewayProcess.json(unknown).keys) == Set(GatewayProcess.json(json).keys))
                // No secret in any log line.
                let log = gateway.logText
                #expect(!log.isEmpty)
                for secret in [code, access, refresh, GatewayProcess.clientSecret] { #expect(!log.contains(secret)) }
            }
        }
    }

    @Test func anOAuthClientLibrarySignsInWithAPasswordAndRefreshes() async throws {
        try await LiveSystem.shared { system in
            let email = "lib-\(UUID().uuidString.prefix(8))@example.com"
            let password = "correct horse battery staple"
            _ = try await system.register(email, password: password)
            let tls = try Self.certificate(in: system)
            try await GatewayProcess.with(system, tls: tls) { gateway in
                let script = """
                import json, sys
                from oauthlib.oauth2 import LegacyApplicationClient
                from requests.auth import HTTPBasicAuth
                from requests_oauthlib import OAuth2Session
                url, ca, username, password, client_id, secret = sys.argv[1:7]
                auth = HTTPBasicAuth(client_id, secret)
                session = OAuth2Session(client=LegacyApplicationClient(client_id=client_id))
                first = session.fetch_token(url + "/oauth/token", username=username, password=password, auth=auth, verify=ca)
                second = session.refresh_token(url + "/oauth/token", auth=auth, verify=ca)
                print(json.dumps({"first": first, "second": second}))
                """
                let path = system.directory + "/oauth_client.py"
                try script.write(toFile: path, atomically: true, encoding: .utf8)
                let run = try ChildProcess("/usr/bin/python3", [path, gateway.url, tls.certificate, email, password,
                                                                GatewayProcess.clientID, GatewayProcess.clientSecret],
                                           errors: .file(system.logs + "/oauth_client.log"))
                var lines: [String] = []
                while let line = await run.nextLine() { lines.append(line) }
                #expect(await run.waitForExit() == 0, "\((try? String(contentsOfFile: system.logs + "/oauth_client.log", encoding: .utf8)) ?? "")")
                let tokens = try #require(try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: [String: Any]])
                let first = try #require(tokens["first"]), second = try #require(tokens["second"])
                #expect(first["token_type"] as? String == "Bearer" && second["token_type"] as? String == "Bearer")
                let oldRefresh = try #require(first["refresh_token"] as? String)
                #expect(second["refresh_token"] as? String != oldRefresh && second["access_token"] as? String != nil)
                // The rotated refresh token is spent: reusing it is an invalid grant.
                let reused = try await gateway.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", oldRefresh)],
                                                        ["-u", "\(GatewayProcess.clientID):\(GatewayProcess.clientSecret)"])
                #expect(reused.status == 400 && GatewayProcess.json(reused)["error"] as? String == "invalid_grant", "\(reused.body)")
                let wrong = try await gateway.postForm("/oauth/token", [("grant_type", "password"), ("username", email), ("password", "not the password by the quiet river")],
                                                       ["-u", "\(GatewayProcess.clientID):\(GatewayProcess.clientSecret)"])
                #expect(wrong.status == 400 && GatewayProcess.json(wrong)["error"] as? String == "invalid_grant", "\(wrong.body)")
            }
        }
    }

    @Test func malformedUnauthenticatedOrOversizedRequestsAreRefusedSpecificallyAndPublishNothing() async throws {
        try await LiveSystem.shared { system in
            try await GatewayProcess.with(system) { gateway in
                let before = try await system.flowMessages().count
                let mailBefore = try system.emails(kind: "code").count
                let email = "edge-\(UUID().uuidString.prefix(8))@example.com"
                let client = [("client_id", GatewayProcess.clientID), ("client_secret", GatewayProcess.clientSecret)]
                let cases: [(what: String, run: CurlRun, status: Int, error: String)] = [
                    ("badly percent-encoded form", try await gateway.curl("/email/getCode", ["--data", "emailAddress=%ZZ&type=1"]), 400, "invalid_request"),
                    ("malformed JSON", try await gateway.curl("/email/getCode", ["-H", "Content-Type: application/json", "--data", "{\"emailAddress\":"]), 400, "invalid_request"),
                    ("wrong content type", try await gateway.curl("/email/getCode", ["-H", "Content-Type: text/plain", "--data", "emailAddress=\(email)&type=1"]), 415, "unsupported_media_type"),
                    ("unknown type", try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "9")]), 400, "invalid_request"),
                    ("token as JSON", try await gateway.curl("/oauth/token", ["-H", "Content-Type: application/json", "--data", "{}"]), 415, "unsupported_media_type"),
                    ("unknown client", try await gateway.postForm("/oauth/token", [("grant_type", "email"), ("email", email), ("code", "123456"),
                                                                                  ("client_id", "mallory"), ("client_secret", "x")]), 401, "invalid_client"),
                    ("wrong client secret", try await gateway.postForm("/oauth/token", [("grant_type", "email"), ("email", email), ("code", "123456"),
                                                                                       ("client_id", GatewayProcess.clientID), ("client_secret", "wrong")]), 401, "invalid_client"),
                    ("wrong Basic secret", try await gateway.postForm("/oauth/token", [("grant_type", "email"), ("email", email), ("code", "123456")],
                                                                      ["-u", "\(GatewayProcess.clientID):wrong"]), 401, "invalid_client"),
                    ("no client authentication", try await gateway.postForm("/oauth/token", [("grant_type", "email"), ("email", email), ("code", "123456")]), 401, "invalid_client"),
                    ("two client authentications", try await gateway.postForm("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", "r")] + client,
                                                                              ["-u", "\(GatewayProcess.clientID):\(GatewayProcess.clientSecret)"]), 400, "invalid_request"),
                    ("unsupported grant", try await gateway.postForm("/oauth/token", [("grant_type", "client_credentials")] + client), 400, "unsupported_grant_type"),
                    ("no grant type", try await gateway.postForm("/oauth/token", client), 400, "invalid_request"),
                    ("missing code", try await gateway.postForm("/oauth/token", [("grant_type", "email"), ("email", email)] + client), 400, "invalid_request"),
                    ("repeated parameter", try await gateway.postForm("/oauth/token", [("grant_type", "email"), ("grant_type", "password")] + client), 400, "invalid_request"),
                    ("oversized body", try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "1"), ("pad", String(repeating: "a", count: 9000))]), 413, ""),
                    ("unknown path", try await gateway.curl("/admin", []), 404, "not_found"),
                    ("wrong method", try await gateway.curl("/oauth/token", []), 405, "method_not_allowed"),
                ]
                for (what, run, status, error) in cases {
                    #expect(run.status == status, "\(what): \(run.status) \(run.body)")
                    if !error.isEmpty { #expect(GatewayProcess.json(run)["error"] as? String == error, "\(what): \(run.body)") }
                }
                #expect(cases.first { $0.what == "unknown client" }?.run.header("WWW-Authenticate") != nil)
                // Nothing reached the topics, no email was sent.
                #expect(try await system.flowMessages().count == before)
                #expect(try system.emails(kind: "code").count == mailBefore)
            }
        }
    }

    @Test func plainHTTPOffLoopbackIsRefusedAtStart() async throws {
        try await LiveSystem.shared { system in
            let started = try await system.registrar(["gateway", "--host", "0.0.0.0", "--port", "0", "--clients", GatewayProcess.clientsFile])
            #expect(started.status == 1 && !started.output.hasPrefix("http"))
        }
    }

    @Test func perAddressLimitsAndIdempotencyKeys() async throws {
        try await LiveSystem.shared { system in
            try await GatewayProcess.with(system, arguments: ["--requests-per-minute", "5"]) { gateway in
                let email = "idem-\(UUID().uuidString.prefix(8))@example.com"
                let key = "idem-\(UUID().uuidString.prefix(8))"
                let first = try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "1")], ["-H", "Idempotency-Key: \(key)"])
                let retry = try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "1")], ["-H", "Idempotency-Key: \(key)"])
                #expect(first.status == 200 && retry.status == 200 && first.body == retry.body, "\(first.body) \(retry.body)")
                // The request id is derived from the key and the request (not the key itself): one code sent.
                let id = try #require(GatewayProcess.json(first)["requestId"] as? String)
                #expect(id != key && id.count == 64)
                #expect(try system.emails(kind: "code").filter { $0.contains("code.\(id)@") }.count == 1)
                // The same key with other fields is another request, answered on its own (no one learns which keys are in use).
                let other = try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "2")], ["-H", "Idempotency-Key: \(key)"])
                #expect(other.status == 200 && GatewayProcess.json(other)["requestId"] as? String != id, "\(other.body)")
                // Five requests of this address this minute are let through, the sixth is not, whatever the endpoint.
                let health = try await gateway.curl("/healthz")
                #expect(health.status == 200)
                let jwks = try await gateway.curl("/.well-known/jwks.json")
                #expect(jwks.status == 200 && jwks.body.contains("\"OKP\"") && jwks.header("Strict-Transport-Security") == nil)
                let limited = try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "3")])
                #expect(limited.status == 429 && Int(limited.header("Retry-After") ?? "") != nil, "\(limited.body)")
                #expect(GatewayProcess.json(limited)["error"] as? String == "rate_limited")
                #expect(try await gateway.curl("/readyz").status == 429)
            }
            try await GatewayProcess.with(system) { gateway in
                // Ready once its probe reached the broker (once a second).
                var ready = try await gateway.curl("/readyz")
                let deadline = ContinuousClock.now + .seconds(20)
                while ready.status != 200, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(200))
                    ready = try await gateway.curl("/readyz")
                }
                #expect(ready.status == 200, "\(ready.body)")
            }
        }
    }
}
