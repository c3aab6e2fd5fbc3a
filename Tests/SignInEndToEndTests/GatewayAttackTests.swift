import Crypto
import Domain
import EventTransport
import Foundation
import Kafka
import SignIn
import Support
@testable import TestSupport
import Testing

/// Issue 21 played against `registrar gateway` in front of the real workers (both stores in `scripts/test`), each
/// attack asserting that the harm did not happen: no one opens another's answer, no forged answer reaches a client,
/// legitimate requests keep being answered during floods, nothing staged remains, old TLS gets no handshake, limits
/// count what they should, status URLs and idempotency keys tell strangers nothing, and the key set is current.
@Suite(.tags(.live), .serialized) struct GatewayAttackTests {
    static let basic = ["-u", "\(GatewayProcess.clientID):\(GatewayProcess.clientSecret)"]

    /// The token request of `email` published last on `auth.requests`, once there.
    static func tokenRequest(of email: String, after count: Int = 0, in system: LiveSystem) async throws -> TokenRequested {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let requests = try await TopicSnapshot.read([Topic.authRequests], configuration: system.kafka).compactMap { message -> TokenRequested? in
                guard case .tokenRequested(let request)? = try? message.event(), request.email == email else { return nil }
                return request
            }
            if requests.count > count, let last = requests.last { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("no token request of \(email)")
    }

    /// Point 1: the attacker's own failing sign-in, answered first (the account worker held) with another user's sealed
    /// tokens under its own request id, gets `invalid_grant`, never those tokens; a victim's sign-in answered first with
    /// the attacker's tokens sealed to the victim's reply key gets the victim's own.
    @Test func theGatewayIsNoDecryptionOracleAndPassesOnNoForgedAnswer() async throws {
        try await LiveSystem.shared(by: "GatewayAttackTests") { system in
            let victim = try await system.victim()
            let attacker = Attacks.unique("attacker") + "@example.com"
            _ = try await system.register(attacker, password: "attacker tram9 violet passphrase")
            try await GatewayProcess.with(system, arguments: ["--wait", "60"]) { gateway in
                let signIn = [("grant_type", "password"), ("username", victim.email), ("password", victim.password)]
                let first = try await gateway.postForm("/oauth/token", signIn, Self.basic)
                let victimAccess = try #require(GatewayProcess.json(first)["access_token"] as? String, "\(first.body)")
                let victimRequest = try await Self.tokenRequest(of: victim.email, in: system)
                guard case .tokenIssued(let victimIssued) = try await system.waitForPublished(on: Topic.authOutcomes, key: victimRequest.requestId) else {
                    throw HarnessError("no TokenIssued for the victim")
                }
                let seenVictimRequests = try await TopicSnapshot.read([Topic.authRequests], configuration: system.kafka)
                    .filter { (try? $0.event()).map { if case .tokenRequested(let r) = $0 { r.email == victim.email } else { false } } ?? false }.count

                try await system.hold("account-worker")
                let attempt = Task { try await gateway.postForm("/oauth/token", [("grant_type", "password"), ("username", attacker),
                                                                                ("password", "a wrong password")], Self.basic) }
                let victimAgain = Task { try await gateway.postForm("/oauth/token", signIn, Self.basic) }
                do {
                    let own = try await Self.tokenRequest(of: attacker, in: system)
                    let copied = Event.tokenIssued(TokenIssued(requestId: own.requestId, sealedTokens: victimIssued.sealedTokens,
                                                               expiresIn: 900, accountCreated: false))
                    try await system.forge(copied)
                    try await system.forge(copied, signedBy: EventSigner(role: .account, key: .generate()))
                    let pending = try await Self.tokenRequest(of: victim.email, after: seenVictimRequests, in: system)
                    let forgedPair = TokenPair(requestId: pending.requestId, uid: "attacker", accessToken: "attacker.forged.token",
                                               refreshToken: "attacker-refresh")
                    let sealed = Data(try SealingPublicKey(base64: pending.replyKey).seal(Array(forgedPair.sealedJSON.utf8))).base64EncodedString()
                    try await system.forge(.tokenIssued(TokenIssued(requestId: pending.requestId, sealedTokens: sealed, expiresIn: 900,
                                                                    accountCreated: false)))
                    try await system.forge(.tokenRefused(RequestRefusal(requestId: pending.requestId, reason: .invalidCredentials, message: "forged")))
                    try await Task.sleep(for: .seconds(2))
                } catch {
                    try await system.resume("account-worker")
                    throw error
                }
                try await system.resume("account-worker")
                let refused = try await attempt.value
                #expect(refused.status == 400 && GatewayProcess.json(refused)["error"] as? String == "invalid_grant", "\(refused.body)")
                #expect(!refused.body.contains("access_token") && !refused.body.contains(victimAccess))
                let answered = try await victimAgain.value
                let access = try #require(GatewayProcess.json(answered)["access_token"] as? String, "\(answered.body)")
                #expect(access != "attacker.forged.token")
                let me = try await gateway.curl("/me", ["-H", "Authorization: Bearer \(access)"])
                #expect(me.status == 200 && GatewayProcess.json(me)["email"] as? String == victim.email, "\(me.body)")
            }
        }
    }

    /// Point 3: heads that never end, from one address, and bodies announced and never sent, from another, hold their
    /// connections only until the deadlines and starve no one: health, a code and a registration with a staged avatar
    /// from a third address are answered meanwhile. Every endpoint is counted by the per-address limit.
    @Test func hostileClientsStarveNoOne() async throws {
        try await LiveSystem.shared { system in
            let arguments = ["--connections-per-address", "8", "--header-timeout", "2", "--body-budget", "64"]
            try await GatewayProcess.with(system, arguments: arguments) { gateway in
                let heads = try await SlowClients.start(port: gateway.port, count: 12, source: "127.0.0.2", script: "GET /healthz HTTP/1.1\r\nX-Pad: ",
                                                  trickle: "a")
                let bodies = try await SlowClients.start(port: gateway.port, count: 4, source: "127.0.0.3", script: """
                    POST /accounts HTTP/1.1\r\nHost: gateway\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: \(20 << 20)\r\n\r\n
                    """, trickle: nil)
                defer { heads.stop(); bodies.stop() }
                try await Task.sleep(for: .milliseconds(500))
                let health = try await gateway.curl("/healthz")
                #expect(health.status == 200, "\(health.body)")
                let email = Attacks.unique("flood") + "@example.com"
                let code = try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "1")])
                #expect(code.status == 200, "\(code.body)")
                let avatar = try await Fixtures.noiseJPEG(width: 700, height: 700)
                #expect(avatar.count > 256 * 1024, "the avatar must be staged")
                let mailed = try system.code(sentBy: try #require(GatewayProcess.json(code)["requestId"] as? String))
                let registered = try await gateway.postMultipart("/accounts", fields: ["name": "Flood", "email": email, "password": "flood proof passphrase",
                                                                                       "code": mailed],
                                                                 avatar: avatar, in: system.directory)
                #expect(registered.status == 201, "\(registered.body)")
                #expect(try await heads.waitUntilClosed(within: .seconds(20)), "unending heads kept their connections")
                #expect(try await bodies.waitUntilClosed(within: .seconds(20)), "unsent bodies kept their connections")
            }
            try await GatewayProcess.with(system, arguments: ["--requests-per-minute", "3"]) { gateway in
                let first = [try await gateway.curl("/healthz"), try await gateway.curl("/healthz"), try await gateway.curl("/nowhere")]
                #expect(first.map(\.status) == [200, 200, 404], "\(first.map(\.body))")
                for path in ["/.well-known/jwks.json", "/healthz", "/requests/x"] {
                    let limited = try await gateway.curl(path)
                    #expect(limited.status == 429 && limited.header("Retry-After") != nil, "\(path): \(limited.body)")
                }
                #expect(try await gateway.curl("/healthz", from: "127.0.0.4").status == 200, "another address has its own count")
            }
        }
    }

    /// Point 4: registrations refused (email taken, password too common, email invalid) after their avatars were staged
    /// leave no staged object behind.
    @Test func refusedRegistrationsLeaveNothingStaged() async throws {
        try await LiveSystem.shared { system in
            let taken = Attacks.unique("taken") + "@example.com"
            _ = try await system.register(taken, password: "taken passphrase")
            let avatar = try await Fixtures.noiseJPEG(width: 700, height: 700)
            #expect(avatar.count > 256 * 1024, "the avatar must be staged")
            try await GatewayProcess.with(system) { gateway in
                let before = try system.backends.objects().list(prefix: "staging/").map(\.key)
                let cases: [(email: String, password: String, status: Int, reason: String)] = [
                    (taken, "another passphrase", 409, "email_taken"),
                    (Attacks.unique("common") + "@example.com", "password1", 422, "password_too_common"),
                    ("not-an-email-\(UUID().uuidString.prefix(6))", "valid passphrase", 422, "email_invalid"),
                ]
                for refusal in cases {
                    // A register code of the address where one can be mailed (the invalid address is refused before its code is read).
                    let code = refusal.reason == "email_invalid" ? "000000" : try await system.code(for: refusal.email, .register)
                    let answer = try await gateway.postMultipart("/accounts", fields: ["name": "Refused", "email": refusal.email,
                                                                                      "password": refusal.password, "code": code],
                                                                 avatar: avatar, in: system.directory)
                    #expect(answer.status == refusal.status && GatewayProcess.json(answer.body)["error"] as? String == refusal.reason, "\(answer.body)")
                }
                #expect(try system.backends.objects().list(prefix: "staging/").map(\.key) == before, "a refused registration left its upload staged")
            }
        }
    }

    /// Point 4: a staged upload nobody reads (a client that gave up) is swept once older than the image worker's retention.
    @Test func abandonedUploadsAreSwept() async throws {
        try await LiveSystem.with(extraArguments: ["image-worker": ["--staging-retention", "2"]]) { system in
            let objects = try system.backends.objects()
            try objects.put(Array(repeating: 7, count: 1000), key: "staging/abandoned-\(UUID().uuidString.prefix(8))", contentType: "image/jpeg")
            try objects.put([1], key: "ProfileImages/kept-\(UUID().uuidString.prefix(8)).jpg", contentType: "image/jpeg")
            let deadline = ContinuousClock.now + .seconds(60)
            while try !objects.list(prefix: "staging/").isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(500)) }
            #expect(try objects.list(prefix: "staging/").isEmpty, "the abandoned upload was not swept")
            #expect(try objects.list(prefix: "ProfileImages/kept-").count == 1, "the sweep deleted something outside staging/")
        }
    }

    /// Point 5: with the README's P-256 certificate, TLS 1.3 and 1.2 with ECDHE and AEAD handshake, and Chromium loads the
    /// gateway; TLS 1.0, 1.1, RSA key exchange and CBC suites (all of which openssl offers when asked) do not handshake.
    /// An Ed25519 certificate (which the README no longer suggests) fails in Chromium.
    @Test func tlsIsOnlyModern() async throws {
        try await LiveSystem.shared { system in
            let directory = system.directory + "/tls-p256-\(UUID().uuidString.prefix(6))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, key) in [("", ["ec", "-pkeyopt", "ec_paramgen_curve:P-256"]), ("ed25519-", ["ed25519"])] {
                _ = try runCommand("/usr/bin/openssl", ["req", "-x509", "-newkey"] + key + ["-nodes", "-days", "1", "-subj", "/CN=localhost",
                                                        "-addext", "subjectAltName=IP:127.0.0.1",
                                                        "-keyout", directory + "/\(name)key.pem", "-out", directory + "/\(name)cert.pem"])
            }
            try await GatewayProcess.with(system, tls: (directory + "/ed25519-cert.pem", directory + "/ed25519-key.pem")) { gateway in
                let chromium = try TLSHandshake.chromium(port: gateway.port, path: "/healthz")
                #expect(!chromium.succeeded && chromium.summary.contains("Page load failed: net::ERR_"), "\(chromium.summary)")
            }
            try await GatewayProcess.with(system, tls: (directory + "/cert.pem", directory + "/key.pem")) { gateway in
                let chromium = try TLSHandshake.chromium(port: gateway.port, path: "/healthz")
                #expect(chromium.succeeded && chromium.summary.contains("\"status\":\"ok\""), "\(chromium.summary)")
                let cases: [([String], Bool)] = [
                    (["-tls1_3"], true), (["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"], true),
                    (["-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305"], true),
                    (["-tls1", "-cipher", "DEFAULT:@SECLEVEL=0"], false), (["-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0"], false),
                    (["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA"], false), (["-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-SHA384"], false),
                ]
                for (options, accepted) in cases {
                    let handshake = try TLSHandshake.attempt(port: gateway.port, options: options)
                    #expect(handshake.succeeded == accepted, "\(options): \(handshake.summary)")
                }
                #expect(try await gateway.curl("/healthz").status == 200)
            }
            let refused = try await system.registrar(["gateway", "--port", "0", "--clients", GatewayProcess.clientsFile, "--tls-cert",
                                                      directory + "/cert.pem", "--tls-key", directory + "/key.pem", "--tls-priorities", "NOT-A-PRIORITY"])
            #expect(refused.status == 1 && !refused.output.hasPrefix("http"))
        }
    }

    /// Point 6: forwarded addresses count only from a trusted proxy (a client cannot rotate its way past the limit; behind
    /// the proxy each client has its own count); every form of an email is one email to the per-email limit; a page of
    /// another origin gets 403 and publishes nothing, an allowed origin its CORS answers.
    @Test func limitsHoldAndBrowsersOfOtherOriginsAreRefused() async throws {
        try await LiveSystem.shared { system in
            try await GatewayProcess.with(system, arguments: ["--trusted-proxies", "127.0.0.1/32", "--requests-per-minute", "3",
                                                             "--sign-ins-per-minute", "2", "--allowed-origins", "https://app.example"]) { gateway in
                var statuses: [Int] = []
                for hop in 1...5 {
                    statuses.append(try await gateway.curl("/healthz", from: "127.0.0.2", ["-H", "X-Forwarded-For: 198.51.100.\(hop)"]).status)
                }
                #expect(statuses == [200, 200, 200, 429, 429], "an untrusted peer chose its address: \(statuses)")
                for client in ["203.0.113.1", "203.0.113.2"] {
                    var behindProxy: [Int] = []
                    for _ in 1...4 {
                        behindProxy.append(try await gateway.curl("/healthz", ["-H", "Forwarded: for=\(client);proto=https"]).status)
                    }
                    #expect(behindProxy == [200, 200, 200, 429], "\(client) behind the trusted proxy: \(behindProxy)")
                }
                let email = Attacks.unique("forms") + "@example.com"
                var signIns: [Int] = []
                for form in [email, " \(email)", email.uppercased() + "\r"] {
                    let run = try await gateway.postForm("/oauth/token", [("grant_type", "password"), ("username", form), ("password", "wrong")],
                                                         Self.basic + ["-H", "Forwarded: for=203.0.113.9"])
                    signIns.append(run.status)
                }
                #expect(signIns == [400, 400, 429], "the forms of one email were counted apart: \(signIns)")

                let before = try await system.flowMessages().count
                let crossSite = try await gateway.postForm("/email/getCode", [("emailAddress", Attacks.unique("page") + "@example.com"), ("type", "1")],
                                                           ["-H", "Origin: https://evil.example", "-H", "Forwarded: for=203.0.113.10"])
                #expect(crossSite.status == 403 && GatewayProcess.json(crossSite)["error"] as? String == "origin_not_allowed", "\(crossSite.body)")
                #expect(try await system.flowMessages().count == before, "a cross-site request was published")
                let preflight = try await gateway.curl("/email/getCode", ["-X", "OPTIONS", "-H", "Origin: https://app.example",
                                                                          "-H", "Access-Control-Request-Method: POST", "-H", "Forwarded: for=203.0.113.11"])
                #expect(preflight.status == 204 && preflight.header("Access-Control-Allow-Origin") == "https://app.example")
                let allowed = try await gateway.postForm("/email/getCode", [("emailAddress", Attacks.unique("app") + "@example.com"), ("type", "1")],
                                                         ["-H", "Origin: https://app.example", "-H", "Forwarded: for=203.0.113.12"])
                #expect(allowed.status == 200 && allowed.header("Access-Control-Allow-Origin") == "https://app.example", "\(allowed.body)")
            }
        }
    }

    /// Point 7: a registration retried by a real multipart client (a new boundary each time) with its key gets the first
    /// answer, one account; a 202 names a status URL that only its holder can read (the request id on the topic reads
    /// nothing); the same key from another OAuth client is another request.
    @Test func statusURLsAreCapabilitiesAndRetriesGetTheFirstAnswer() async throws {
        try await LiveSystem.shared(by: "GatewayAttackTests") { system in
            let clients = system.directory + "/two-clients-\(UUID().uuidString.prefix(6)).json"
            try #"{"clients":[{"id":"erban-client","secret":"local-demo-secret-change-me"},{"id":"other-app","secret":"other-secret"}]}"#
                .write(toFile: clients, atomically: true, encoding: .utf8)
            try await GatewayProcess.with(system, clients: clients, arguments: ["--wait", "2"]) { gateway in
                let email = Attacks.unique("retry") + "@example.com"
                let key = ["Idempotency-Key": Attacks.unique("signup")]
                let fields = ["name": "Retry", "email": email, "password": "retried passphrase", "isMapLocationEnabled": "true",
                              "code": try await system.code(for: email, .register)]
                let first = try await gateway.postMultipart("/accounts", fields: fields, avatar: nil, headers: key, in: system.directory)
                #expect([201, 202].contains(first.status), "\(first.body)")
                let answers = try await GatewayOutageTests.retried(within: .seconds(90)) {
                    let run = try await gateway.postMultipart("/accounts", fields: fields, avatar: nil, headers: key, in: system.directory)
                    #expect(run.contentType != first.contentType, "the client kept its boundary")
                    return (run.status, run.body)
                }
                let answer = try #require(answers.last)
                let retry = try await gateway.postMultipart("/accounts", fields: fields, avatar: nil, headers: key, in: system.directory)
                #expect(answer.status == 201 && retry.status == 201 && retry.body == answer.body, "\(answer.body) / \(retry.body)")
                #expect(try system.backends.accounts().accounts().filter { $0.email == email }.count == 1)

                let late = Attacks.unique("late") + "@example.com"
                let lateCode = try await system.code(for: late, .register)
                try await system.hold("account-worker")
                let accepted: (status: Int, contentType: String, body: String)
                do {
                    accepted = try await gateway.postMultipart("/accounts", fields: ["name": "Late", "email": late, "password": "late passphrase",
                                                                                     "code": lateCode],
                                                               avatar: nil, in: system.directory)
                } catch {
                    try await system.resume("account-worker")
                    throw error
                }
                let acceptance = GatewayProcess.json(accepted.body)
                let location = try #require(acceptance["status"] as? String, "\(accepted.body)")
                let requestId = try #require(acceptance["requestId"] as? String)
                #expect(accepted.status == 202 && location.hasPrefix("/requests/") && !location.contains(requestId))
                #expect(try await gateway.curl("/requests/" + requestId).status == 404, "the request id read a status")
                #expect(try await gateway.curl("/registrations/" + requestId).status == 404)
                #expect(try await gateway.curl(location).status == 202)
                try await system.resume("account-worker")
                var polled = try await gateway.curl(location)
                let deadline = ContinuousClock.now + .seconds(60)
                while polled.status == 202, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(300))
                    polled = try await gateway.curl(location)
                }
                #expect(polled.status == 201 && GatewayProcess.json(polled)["uid"] != nil, "\(polled.body)")

                // One key, two OAuth clients: two requests, each answered on its own (each retried with the key while
                // it is past the 2 s wait, as a client does on 503 + Retry-After).
                let signIn = [("grant_type", "password"), ("username", email), ("password", "retried passphrase")]
                let shared = ["-H", "Idempotency-Key: \(Attacks.unique("shared"))"]
                let mine = try #require(try await GatewayOutageTests.retried(within: .seconds(60)) {
                    let run = try await gateway.postForm("/oauth/token", signIn, Self.basic + shared)
                    return (run.status, run.body)
                }.last)
                let theirs = try #require(try await GatewayOutageTests.retried(within: .seconds(60)) {
                    let run = try await gateway.postForm("/oauth/token", signIn, ["-u", "other-app:other-secret"] + shared)
                    return (run.status, run.body)
                }.last)
                #expect(mine.status == 200 && theirs.status == 200 && mine.body != theirs.body, "\(mine.body) / \(theirs.body)")
            }
        }
    }

    /// Point 8: after `registrar keys rotate-signing` the gateway serves the new key at once (tokens of the new key
    /// verify against what it serves); a retired key whose tokens have all expired is no longer served.
    @Test func theGatewayServesTheCurrentKeySet() async throws {
        try await LiveSystem.with { system in
            let keys = system.directory + "/keys"
            try await GatewayProcess.with(system) { gateway in
                let before = Set(try Self.keyIDs(try await gateway.curl("/.well-known/jwks.json")))
                let rotated = try await system.registrar(["keys", "rotate-signing", "--keys-dir", keys])
                #expect(rotated.status == 0, "\(rotated.output)")
                let after = Set(try Self.keyIDs(try await gateway.curl("/.well-known/jwks.json")))
                #expect(after.count == before.count + 1 && after.isSuperset(of: before), "\(before) → \(after)")
                // The old key retired long ago (as if its tokens' lifetime had passed): no longer served.
                let retiredPath = keys + "/access-tokens.ed25519.retired"
                var retired = try JSONDecoder().decode([SigningKeySet.RetiredKey].self, from: Data(contentsOf: URL(fileURLWithPath: retiredPath)))
                for index in retired.indices { retired[index].retiredAt -= 3600 }
                try JSONEncoder().encode(retired).write(to: URL(fileURLWithPath: retiredPath))
                let served = Set(try Self.keyIDs(try await gateway.curl("/.well-known/jwks.json")))
                #expect(served == after.subtracting(before), "\(served)")
            }
        }
    }

    static func keyIDs(_ run: CurlRun) throws -> [String] {
        let keys = try #require(GatewayProcess.json(run)["keys"] as? [[String: Any]], "\(run.body)")
        return keys.compactMap { $0["kid"] as? String }
    }
}
