import Domain
import Foundation
import Gateway
import HTTPServer
import Kafka
import RegistrarClient
@testable import TestSupport
import Testing

/// Every route of the gateway and every answer it gives, through `Gateway.handle` in the test process in front of
/// the in-process workers (the route tier); `GatewayEdgeTests` and its siblings send the same over TLS to the process.
@Suite(.tags(.routes)) struct GatewayRouteTests {
    @Test func healthzAnswersOK() async throws {
        let routes = try await Routes.gateway()
        let answer = await routes.get("/healthz")
        #expect(answer.status == 200 && answer.json["status"] as? String == "ok")
        #expect(answer.header("Strict-Transport-Security") != nil && answer.header("X-Content-Type-Options") == "nosniff")
    }

    @Test func readyzAnswersReadyOnceTheProbeReachedTheBroker() async throws {
        let routes = try await Routes.gateway()
        #expect(await routes.get("/readyz").status == 503, "ready before the broker was ever reached")
        await routes.gateway.probeBrokerOnce()
        let answer = await routes.get("/readyz")
        #expect(answer.status == 200 && answer.json["status"] as? String == "ready", "\(answer)")
    }

    @Test func readyzAnswers503WhileTheBrokerIsDown() async throws {
        let routes = try await Routes.gateway()
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopics(Topic.all.map { ($0.name, $0.partitions) })
        let client = try RegistrarClient(kafka: .init(bootstrapServers: cluster.bootstrapServers, clientID: "route-down"),
                                         publicKey: routes.system.publicKey, verifier: try routes.system.outcomeVerifier(), name: "route-down")
        var configuration = routes.configuration
        configuration.brokerLiveness = .zero
        let gateway = Gateway(clients: ClientSupply(serving: client), replySecret: client.replySecret, staging: nil, configuration: configuration)
        await gateway.probeBrokerOnce()
        #expect(Routes.Answer(await gateway.handle(.init(method: "GET", path: "/readyz"))).status == 200)
        try cluster.setBrokerDown(1)
        await gateway.probeBrokerOnce()
        let answer = Routes.Answer(await gateway.handle(.init(method: "GET", path: "/readyz")))
        let health = Routes.Answer(await gateway.handle(.init(method: "GET", path: "/healthz")))
        await client.close()
        #expect(answer.status == 503 && answer.error == "broker_unreachable", "\(answer)")
        #expect(health.status == 503 && health.error == "broker_unreachable", "past the liveness bound: \(health)")
    }

    @Test func theJWKSIsServedAsPublished() async throws {
        // (`ServedKeySet` re-reads it on a rotation: GatewayAttackTests.theGatewayServesTheCurrentKeySet)
        let routes = try await Routes.gateway()
        let answer = await routes.get("/.well-known/jwks.json")
        #expect(answer.status == 200 && answer.header("Cache-Control") == "public, max-age=300")
        #expect(answer.text == (try String(contentsOfFile: routes.system.directory + "/keys/jwks.json", encoding: .utf8)))
    }

    @Test func theAuthorizationServerMetadataNamesExactlyWhatIsServed() async throws {
        let routes = try await Routes.gateway { $0.issuer = "https://auth.example.com" }
        let answer = await routes.get("/.well-known/oauth-authorization-server")
        #expect(answer.status == 200 && answer.header("Content-Type") == "application/json", "\(answer)")
        #expect(answer.json["issuer"] as? String == "https://auth.example.com")
        #expect(answer.json["token_endpoint"] as? String == "https://auth.example.com/oauth/token")
        #expect(answer.json["jwks_uri"] as? String == "https://auth.example.com/.well-known/jwks.json")
        #expect(answer.json["grant_types_supported"] as? [String] == ["email", "password", "refresh_token"])
        #expect(answer.json["token_endpoint_auth_methods_supported"] as? [String] == ["client_secret_basic", "client_secret_post"])
        #expect(answer.json["response_types_supported"] as? [String] == [], "no authorization endpoint, so no response type")
        // Every endpoint it names is served, and a grant it does not name is refused.
        for key in ["token_endpoint", "jwks_uri"] {
            let path = try #require((answer.json[key] as? String)?.replacingOccurrences(of: "https://auth.example.com", with: ""))
            #expect(await routes.get(path).status != 404, "\(key)")
        }
        let other = await routes.post("/oauth/token", form: [("grant_type", "client_credentials")], headers: [("Authorization", Self.basic)])
        #expect(other.error == "unsupported_grant_type")
    }

    @Test func anUnknownPathIs404AndAWrongMethod405() async throws {
        let routes = try await Routes.gateway()
        #expect(await routes.get("/nowhere").status == 404)
        let wrong = await routes.get("/oauth/token")
        #expect(wrong.status == 405 && wrong.header("Allow") == "POST" && wrong.error == "method_not_allowed")
        #expect(await routes.post("/healthz", form: []).header("Allow") == "GET")
    }

    @Test func aClientAddressPastItsLimitIs429() async throws {
        let routes = try await Routes.gateway { $0.requestsPerMinutePerAddress = 1 }
        let refusals = metricValue(#"registrar_gateway_rate_limited_total{limit="address"}"#)
        #expect(await routes.post("/email/getCode", form: [("emailAddress", Routes.email("limited")), ("type", "2")]).status == 200)
        let refused = await routes.post("/email/getCode", form: [("emailAddress", Routes.email("limited")), ("type", "2")])
        #expect(refused.status == 429 && refused.error == "rate_limited" && Int(refused.header("Retry-After") ?? "") != nil)
        #expect(metricValue(#"registrar_gateway_rate_limited_total{limit="address"}"#) >= refusals + 1, "the refusal is counted")
    }

    // MARK: POST /email/getCode

    @Test func getCodeSendsACode() async throws {
        let routes = try await Routes.gateway()
        let answer = await routes.post("/email/getCode", form: [("emailAddress", Routes.email("code")), ("type", "1")])
        #expect(answer.status == 200 && answer.json["purpose"] as? String == "register" && (answer.json["expiresIn"] as? Int ?? 0) > 0, "\(answer)")
        _ = try routes.system.code(sentBy: try #require(answer.json["requestId"] as? String))
    }

    @Test func getCodeTakesJSON() async throws {
        let routes = try await Routes.gateway()
        let body = #"{"emailAddress":"\#(Routes.email("json"))","type":"reset_password"}"#
        let answer = await routes.post("/email/getCode", body: Array(body.utf8), type: "application/json")
        #expect(answer.status == 200 && answer.json["purpose"] as? String == "reset_password", "\(answer)")
    }

    @Test func getCodeAgainWithinTheCooldownIs429WithTheWait() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("cooldown")
        #expect(await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "2")]).status == 200)
        let again = await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "2")])
        #expect(again.status == 429 && again.error == ReasonCode.codeRateLimited.rawValue && Int(again.header("Retry-After") ?? "") != nil, "\(again)")
    }

    @Test func getCodePastTheGatewaysPerEmailLimitIs429() async throws {
        let routes = try await Routes.gateway { $0.codesPerHourPerEmail = 1 }
        let email = Routes.email("hourly")
        #expect(await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "2")]).status == 200)
        let refused = await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "3")])
        #expect(refused.status == 429 && refused.error == "rate_limited", "\(refused)")
    }

    @Test func getCodeForAnInvalidAddressIs400WithTheReason() async throws {
        let answer = try await Routes.gateway().post("/email/getCode", form: [("emailAddress", "not-an-address"), ("type", "2")])
        #expect(answer.status == 400 && answer.error == ReasonCode.emailInvalid.rawValue, "\(answer)")
    }

    @Test func getCodeWithoutAnAddressOrAKnownTypeIs400() async throws {
        let routes = try await Routes.gateway()
        #expect(await routes.post("/email/getCode", form: [("type", "2")]).error == "invalid_request")
        let type = await routes.post("/email/getCode", form: [("emailAddress", Routes.email("type")), ("type", "9")])
        #expect(type.status == 400 && type.error == "invalid_request")
    }

    @Test func getCodeMailsInTheLanguageAcceptLanguagePrefers() async throws {
        let routes = try await Routes.gateway()
        for (header, subject) in [("fr;q=0.9, zh-CN, en;q=0.5", "您的Registrar验证码"), ("de", "Your Registrar code")] {
            let answer = await routes.post("/email/getCode", form: [("emailAddress", Routes.email("locale")), ("type", "2")],
                                           headers: [("Accept-Language", header)])
            let mail = try routes.system.email(kind: "code", requestId: try #require(answer.json["requestId"] as? String))
            // Lines, whatever their ending: the SMTP server of the production backends stores a mail with LF endings.
            let subjectLine = "Subject: " + (subject.allSatisfy(\.isASCII) ? subject : "=?UTF-8?B?\(Data(subject.utf8).base64EncodedString())?=")
            #expect(mail.split(whereSeparator: \.isNewline).contains { $0 == subjectLine },
                    "\(header): \(mail)")
        }
    }

    @Test func getCodeInAnotherMediaTypeIs415() async throws {
        let answer = try await Routes.gateway().post("/email/getCode", body: Array("emailAddress=a@example.com".utf8), type: "text/plain")
        #expect(answer.status == 415 && answer.error == "unsupported_media_type")
    }

    // MARK: POST /oauth/token

    @Test func thePasswordGrantIssuesTokensNeverCached() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("grant")
        _ = try await routes.system.register(email, password: "route grant password")
        let answer = await routes.post("/oauth/token", form: [("grant_type", "password"), ("username", email), ("password", "route grant password")],
                                       headers: [("Authorization", Self.basic)])
        #expect(answer.status == 200 && answer.json["token_type"] as? String == "Bearer" && answer.json["refresh_token"] is String, "\(answer)")
        #expect(answer.header("Cache-Control") == "no-store" && answer.header("Pragma") == "no-cache")
    }

    /// The right password of an account whose mailbox was never proven: 403 `email_unverified`, a login code mailed to
    /// the address; the same grant with that code beside the password signs in, and from then the password alone.
    @Test func thePasswordOfAnUnprovenAccountIs403AndALoginCodeIsMailed() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("unproven")
        let uid = try await routes.system.register(email, password: "route unproven password")
        try await routes.system.backends.executeOnAccounts("UPDATE accounts SET verified_at = NULL WHERE uid = '\(uid)'", logs: routes.system.logs)
        let grant = [("grant_type", "password"), ("username", email), ("password", "route unproven password")]
        let before = try routes.system.codeEmails(to: email, .login)
        let asked = await routes.post("/oauth/token", form: grant, headers: [("Authorization", Self.basic)])
        #expect(asked.status == 403 && asked.error == ReasonCode.emailUnverified.rawValue, "\(asked)")
        let mail = try #require(try routes.system.codeEmails(to: email, .login).subtracting(before).first, "a login code mailed")
        let code = try #require(LiveSystem.code(in: mail))
        let answer = await routes.post("/oauth/token", form: grant + [("code", code)], headers: [("Authorization", Self.basic)])
        #expect(answer.status == 200 && answer.json["access_token"] is String, "\(answer)")
        #expect(await routes.post("/oauth/token", form: grant, headers: [("Authorization", Self.basic)]).status == 200)
    }

    @Test func theEmailGrantSignsInWithACode() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("emailgrant")
        let sent = await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "1")])
        let code = try routes.system.code(sentBy: try #require(sent.json["requestId"] as? String))
        let answer = await routes.post("/oauth/token", form: [("grant_type", "email"), ("email", email), ("code", code)] + Routes.clientFields)
        #expect(answer.status == 200 && answer.json["access_token"] is String, "\(answer)")
    }

    @Test func theRefreshGrantRotatesTheToken() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("refresh")
        _ = try await routes.system.register(email, password: "route refresh password")
        let first = try await routes.tokens(email, "route refresh password")
        let rotated = await routes.post("/oauth/token", form: [("grant_type", "refresh_token"), ("refresh_token", first.refresh)] + Routes.clientFields)
        #expect(rotated.status == 200 && rotated.json["refresh_token"] as? String != first.refresh, "\(rotated)")
    }

    @Test func aWrongCredentialIsInvalidGrant() async throws {
        let answer = try await Routes.gateway().post("/oauth/token", form: [
            ("grant_type", "password"), ("username", Routes.email("nobody")), ("password", "not the password"),
        ] + Routes.clientFields)
        #expect(answer.status == 400 && answer.error == "invalid_grant", "\(answer)")
    }

    @Test func anIncompleteProfileIs403() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("incomplete")
        let uid = try await routes.system.register(email, password: "route incomplete password")
        try await routes.system.blankProfileImage(of: uid)
        let answer = await routes.post("/oauth/token", form: [("grant_type", "password"), ("username", email), ("password", "route incomplete password")]
                                       + Routes.clientFields)
        #expect(answer.status == 403 && answer.error == ReasonCode.profileIncomplete.rawValue, "\(answer)")
    }

    @Test func anUnknownOrMissingClientIs401WithTheBasicChallenge() async throws {
        let routes = try await Routes.gateway()
        let fields = [("grant_type", "refresh_token"), ("refresh_token", "x")]
        for extra in [[], [("client_id", Routes.clientID), ("client_secret", "wrong")]] {
            let answer = await routes.post("/oauth/token", form: fields + extra)
            #expect(answer.status == 401 && answer.error == "invalid_client" && answer.header("WWW-Authenticate") == #"Basic realm="registrar""#)
        }
    }

    @Test func anUnsupportedGrantIs400() async throws {
        let answer = try await Routes.gateway().post("/oauth/token", form: [("grant_type", "client_credentials")] + Routes.clientFields)
        #expect(answer.status == 400 && answer.error == "unsupported_grant_type")
    }

    @Test func aMissingParameterOrTwoClientMethodsAreInvalidRequest() async throws {
        let routes = try await Routes.gateway()
        #expect(await routes.post("/oauth/token", form: Routes.clientFields).error == "invalid_request")
        #expect(await routes.post("/oauth/token", form: [("grant_type", "password"), ("username", "a@example.com")] + Routes.clientFields)
            .error == "invalid_request")
        let both = await routes.post("/oauth/token", form: [("grant_type", "refresh_token"), ("refresh_token", "x")] + Routes.clientFields,
                                     headers: [("Authorization", Self.basic)])
        #expect(both.status == 400 && both.error == "invalid_request")
    }

    @Test func signInsPastThePerEmailLimitAre429() async throws {
        let routes = try await Routes.gateway { $0.signInsPerMinutePerEmail = 1 }
        let fields = [("grant_type", "password"), ("username", Routes.email("many")), ("password", "whatever it is")] + Routes.clientFields
        #expect(await routes.post("/oauth/token", form: fields).status == 400)
        #expect(await routes.post("/oauth/token", form: fields).status == 429)
    }

    @Test func aTokenAnswerNotInTimeIs503ToRetryWithTheKey() async throws {
        let routes = try await Routes.gateway { $0.wait = .zero }
        let answer = await routes.post("/oauth/token", form: [("grant_type", "password"), ("username", Routes.email("slow")), ("password", "whatever it is")]
                                       + Routes.clientFields)
        #expect(answer.status == 503 && answer.error == "temporarily_unavailable" && answer.header("Retry-After") == "1", "\(answer)")
    }

    /// Issue 23 point 1: an outcome that does not come within the gateway's listening window is never an answer: a
    /// token request gets 503 with Retry-After, a code request 202 with its status URL, each time, nothing cached.
    @Test func anOutcomeThatNeverComesIsNeverAnAnswer() async throws {
        let routes = try await Routes.gateway { $0.listening = .zero; $0.wait = .seconds(5) }
        let key = [("Idempotency-Key", UUID().uuidString.lowercased())]
        let fields = [("grant_type", "password"), ("username", Routes.email("late")), ("password", "whatever it is")] + Routes.clientFields
        for _ in 0..<2 {
            let answer = await routes.post("/oauth/token", form: fields, headers: key)
            #expect(answer.status == 503 && answer.error == "temporarily_unavailable" && answer.header("Retry-After") == "1", "\(answer)")
            let code = await routes.post("/email/getCode", form: [("emailAddress", Routes.email("late")), ("type", "2")], headers: key)
            #expect(code.status == 202 && code.header("Location") != nil, "\(code)")
        }
    }

    /// Issue 23 point 2: a publish that fails (the broker gone longer than the delivery timeout, as on a real cluster) is
    /// published again once the broker is back, never kept as the answer: the status URL of the 202 shows the workers' answer.
    @Test func aFailedPublishIsTriedAgainNeverKept() async throws {
        let shared = try await Routes.gateway()
        try await InProcessSystem.with { system in
            var kafka = system.kafka
            kafka.deliveryTimeout = .seconds(1)
            let client = try RegistrarClient(kafka: kafka, publicKey: system.publicKey, verifier: try system.outcomeVerifier(), name: "route-failing")
            var configuration = shared.configuration
            configuration.wait = .seconds(2)
            let gateway = Gateway(clients: ClientSupply(serving: client), replySecret: client.replySecret, staging: nil, configuration: configuration)
            let routes = Routes(system: system, gateway: gateway, configuration: configuration, address: "10.23.2.1")
            try system.cluster.setBrokerDown(1)
            let accepted = await routes.post("/email/getCode", form: [("emailAddress", Routes.email("republished")), ("type", "1")])
            let location = try #require(accepted.header("Location"), "\(accepted)")
            #expect(accepted.status == 202)
            try await Task.sleep(for: .seconds(2))
            #expect(await routes.get(location).status == 202, "a failed publish ended the request")
            try system.cluster.setBrokerUp(1)
            let deadline = ContinuousClock.now + .seconds(60)
            var found = await routes.get(location)
            while found.status == 202, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                found = await routes.get(location)
            }
            await client.close()
            #expect(found.status == 200, "\(found)")
        }
    }

    static let basic = "Basic " + Data("\(Routes.clientID):\(Routes.clientSecret)".utf8).base64EncodedString()

    // MARK: POST /accounts

    @Test func aRegistrationIs201WithTheProfile() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("register")
        let code = try await routes.system.code(for: email, .register)
        let answer = await routes.postMultipart("/accounts", [("name", "Route"), ("email", email), ("password", "route register password"),
                                                              ("code", code), ("isMapLocationEnabled", "true")])
        let profile = try #require(answer.json["profile"] as? [String: Any], "\(answer)")
        #expect(answer.status == 201 && answer.json["uid"] is String && profile["email"] as? String == email)
        #expect(profile["isMapLocationEnabled"] as? Bool == true && (profile["profileImage"] as? String)?.isEmpty == false)
    }

    @Test func aTakenEmailIs409() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("taken")
        _ = try await routes.system.register(email, password: "route taken password")
        let code = try await routes.system.code(for: email, .register)
        let answer = await routes.postMultipart("/accounts", [("name", "Again"), ("email", email), ("password", "route taken password 2"),
                                                              ("code", code)])
        #expect(answer.status == 409 && answer.error == ReasonCode.emailTaken.rawValue, "\(answer)")
    }

    @Test func aRefusedRegistrationIs422WithTheReason() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("short")
        let code = try await routes.system.code(for: email, .register)
        let answer = await routes.postMultipart("/accounts", [("name", "Short"), ("email", email), ("password", "short"), ("code", code)])
        #expect(answer.status == 422 && answer.error == ReasonCode.passwordTooShort.rawValue, "\(answer)")
    }

    /// The register code proves the mailbox: without it, or with a wrong one, nothing is created.
    @Test func aRegistrationWithoutItsRegisterCodeIs422() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("codeless")
        let missing = await routes.postMultipart("/accounts", [("name", "No Code"), ("email", email), ("password", "route codeless password")])
        #expect(missing.status == 422 && missing.error == ReasonCode.codeRequired.rawValue, "\(missing)")
        let wrong = await routes.postMultipart("/accounts", [("name", "No Code"), ("email", email), ("password", "route codeless password"),
                                                             ("code", "000000")])
        #expect(wrong.status == 422 && wrong.error == ReasonCode.invalidCredentials.rawValue, "\(wrong)")
        #expect(try routes.system.backends.accounts().account(email: email) == nil)
    }

    @Test func aRegistrationNotMultipartIs415AndWithoutFields400() async throws {
        let routes = try await Routes.gateway()
        #expect(await routes.post("/accounts", form: [("email", "a@example.com")]).status == 415)
        let missing = await routes.postMultipart("/accounts", [("email", Routes.email("fields"))])
        #expect(missing.status == 400 && missing.error == "invalid_request")
        let flag = await routes.postMultipart("/accounts", [("name", "N"), ("email", Routes.email("flag")), ("password", "pw pw pw pw"),
                                                            ("isMapLocationEnabled", "maybe")])
        #expect(flag.status == 400 && flag.error == "invalid_request")
    }

    @Test func aSlowRegistrationIs202AndItsAnswerIsFoundAtTheStatusURL() async throws {
        // Polled every 50 ms: the per-address limit is not what this test is about.
        let routes = try await Routes.gateway { $0.wait = .zero; $0.requestsPerMinutePerAddress = 10_000 }
        let email = Routes.email("later")
        let code = try await routes.system.code(for: email, .register)
        let answer = await routes.postMultipart("/accounts", [("name", "Later"), ("email", email), ("password", "route later password"),
                                                              ("code", code)])
        let location = try #require(answer.header("Location"), "\(answer)")
        #expect(answer.status == 202 && answer.json["status"] as? String == location)
        let deadline = ContinuousClock.now + .seconds(60)
        var found = await routes.get(location)
        while found.status == 202, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            found = await routes.get(location)
        }
        #expect(found.status == 201, "\(found)")
        #expect(await routes.get("/requests/unknown-request").status == 404)
    }

    // MARK: Idempotency-Key

    /// Issue 21 point 7: a key with the same fields, as a form or as JSON, is one request; with other fields another,
    /// answered on its own; a multipart registration retried with another boundary gets the first answer.
    @Test func anIdempotencyKeyGivesOneAnswerPerRequestWhateverItsEncoding() async throws {
        let routes = try await Routes.gateway()
        let key = [("Idempotency-Key", UUID().uuidString.lowercased())]
        let email = Routes.email("idem")
        let first = await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "2")], headers: key)
        let again = await routes.post("/email/getCode", body: Array(#"{"type":"2","emailAddress":"\#(email)"}"#.utf8), type: "application/json",
                                      headers: key)
        #expect(first.status == 200 && again.text == first.text, "\(first) / \(again)")
        let other = await routes.post("/email/getCode", form: [("emailAddress", Routes.email("other")), ("type", "2")], headers: key)
        #expect(other.status == 200 && other.json["requestId"] as? String != first.json["requestId"] as? String, "\(other)")
        let signUpEmail = Routes.email("idem-signup")
        let registration = [("name", "Idem"), ("email", signUpEmail), ("password", "idempotent signup password"),
                            ("code", try await routes.system.code(for: signUpEmail, .register))]
        let signedUp = await routes.postMultipart("/accounts", registration, headers: key)
        let retried = await routes.postMultipart("/accounts", registration, headers: key)
        #expect(signedUp.status == 201 && retried.text == signedUp.text, "\(signedUp) / \(retried)")
        let malformed = await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "2")], headers: [("Idempotency-Key", "bad key!")])
        #expect(malformed.status == 400 && malformed.error == "invalid_request")
    }

    // MARK: Account changes

    @Test func aPasswordChangeIs200AndTheOldPasswordStopsWorking() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("change")
        _ = try await routes.system.register(email, password: "route old password")
        let answer = await routes.post("/me/password", form: [("email", email), ("oldPassword", "route old password"), ("newPassword", "route new password")])
        #expect(answer.status == 200 && answer.json["change"] as? String == "change_password", "\(answer)")
        #expect(await routes.post("/oauth/token", form: [("grant_type", "password"), ("username", email), ("password", "route old password")]
                                  + Routes.clientFields).error == "invalid_grant")
    }

    @Test func aPasswordChangeWithAWrongPasswordIs403() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("wrongold")
        _ = try await routes.system.register(email, password: "route right password")
        let answer = await routes.post("/me/password", form: [("email", email), ("oldPassword", "route wrong password"), ("newPassword", "route new password")])
        #expect(answer.status == 403 && answer.error == ReasonCode.invalidCredentials.rawValue, "\(answer)")
    }

    @Test func aRefusedNewPasswordIs400WithTheReason() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("weak")
        _ = try await routes.system.register(email, password: "route weak password")
        let answer = await routes.post("/me/password", form: [("email", email), ("oldPassword", "route weak password"), ("newPassword", "short")])
        #expect(answer.status == 400 && answer.error == ReasonCode.passwordTooShort.rawValue, "\(answer)")
        let missing = await routes.post("/me/password", form: [("email", email)])
        #expect(missing.status == 400 && missing.error == "invalid_request")
    }

    @Test func aPasswordResetWithACodeIs200AndWithAWrongCode403() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("reset")
        _ = try await routes.system.register(email, password: "route before reset")
        let wrong = await routes.post("/password/reset", form: [("email", email), ("code", "000000"), ("newPassword", "route after reset")])
        #expect(wrong.status == 403 && wrong.error == ReasonCode.invalidCredentials.rawValue, "\(wrong)")
        let code = try await routes.system.code(for: email, .resetPassword)
        let answer = await routes.post("/password/reset", form: [("email", email), ("code", code), ("newPassword", "route after reset")])
        #expect(answer.status == 200 && answer.json["change"] as? String == "reset_password", "\(answer)")
    }

    @Test func anEmailChangeIs200AndWithAWrongPassword403() async throws {
        let routes = try await Routes.gateway()
        let (email, newEmail) = (Routes.email("move"), Routes.email("moved"))
        _ = try await routes.system.register(email, password: "route move password")
        let code = try await routes.system.code(for: newEmail, .changeEmail)
        let wrong = await routes.post("/me/email", form: [("email", email), ("password", "not it at all"), ("newEmail", newEmail), ("code", code)])
        #expect(wrong.status == 403 && wrong.error == ReasonCode.invalidCredentials.rawValue, "\(wrong)")
        // A wrong password leaves the code unused.
        let answer = await routes.post("/me/email", form: [("email", email), ("password", "route move password"), ("newEmail", newEmail), ("code", code)])
        #expect(answer.status == 200 && answer.json["change"] as? String == "change_email", "\(answer)")
    }

    // MARK: GET /me

    @Test func meAnswersTheProfileOfAValidToken() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("me")
        let uid = try await routes.system.register(email, password: "route me password")
        let tokens = try await routes.tokens(email, "route me password")
        let answer = await routes.get("/me", headers: [("Authorization", "Bearer \(tokens.access)")])
        #expect(answer.status == 200 && answer.json["uid"] as? String == uid && answer.json["email"] as? String == email, "\(answer)")
    }

    @Test func meWithoutOrWithABadTokenIs401WithTheBearerChallenge() async throws {
        let routes = try await Routes.gateway()
        let missing = await routes.get("/me")
        #expect(missing.status == 401 && missing.header("WWW-Authenticate") == #"Bearer realm="registrar""#)
        for header in ["Basic abc", "Bearer ", "Bearer not-a-token"] {
            let refused = await routes.get("/me", headers: [("Authorization", header)])
            #expect(refused.status == 401 && refused.header("WWW-Authenticate") == #"Bearer realm="registrar", error="invalid_token""#, "\(header)")
        }
    }

    @Test func meForAnIncompleteProfileIs403() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("meguard")
        let uid = try await routes.system.register(email, password: "route guard password")
        let tokens = try await routes.tokens(email, "route guard password")
        try await routes.system.blankProfileImage(of: uid)
        let answer = await routes.get("/me", headers: [("Authorization", "Bearer \(tokens.access)")])
        #expect(answer.status == 403 && answer.error == ReasonCode.profileIncomplete.rawValue, "\(answer)")
    }

    // MARK: Issue 21, points 6 and 7, in the route tier

    @Test func aBrowserOfAnotherOriginIs403AndPublishesNothingAndAnAllowedOneGetsCORS() async throws {
        let routes = try await Routes.gateway { $0.allowedOrigins = ["https://app.example"] }
        let email = Routes.email("origin")
        let refused = await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "2")], headers: [("Origin", "https://evil.example")])
        #expect(refused.status == 403 && refused.error == "origin_not_allowed", "\(refused)")
        #expect(try routes.system.emails(kind: "code").allSatisfy { !$0.contains(email) })
        let allowed = await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "2")], headers: [("Origin", "https://app.example")])
        #expect(allowed.status == 200 && allowed.header("Access-Control-Allow-Origin") == "https://app.example", "\(allowed)")
    }

    @Test func forwardedAddressesCountOnlyFromATrustedProxy() async throws {
        let routes = try await Routes.gateway { $0.requestsPerMinutePerAddress = 1; $0.trustedProxies = [AddressRange("192.0.2.0/24")!] }
        let peer = "198.51.100.\(UInt8.random(in: 1...254))"
        func health(from peer: String, forwardedFor client: String) async -> Int {
            await routes.gateway.respond(to: HTTPRequest(method: "GET", path: "/healthz", headers: HTTPHeaders([("X-Forwarded-For", client)]),
                                                         clientAddress: peer)).status
        }
        #expect(await health(from: peer, forwardedFor: "203.0.113.1") == 200)
        #expect(await health(from: peer, forwardedFor: "203.0.113.2") == 429, "an untrusted peer chose its address")
        let proxy = "192.0.2.\(UInt8.random(in: 1...254))"
        let client = "203.0.113.\(UInt8.random(in: 1...254))"
        #expect(await health(from: proxy, forwardedFor: client) == 200)
        #expect(await health(from: proxy, forwardedFor: client) == 429)
        #expect(await health(from: proxy, forwardedFor: "2001:db8::\(UInt8.random(in: 1...254))") == 200, "another client behind the proxy")
    }

    @Test func theStatusURLIsACapabilityNotTheRequestId() async throws {
        let routes = try await Routes.gateway { $0.wait = .zero }
        let email = Routes.email("capable")
        let answer = await routes.postMultipart("/accounts", [("name", "Capable"), ("email", email), ("password", "capable password"),
                                                              ("code", try await routes.system.code(for: email, .register))])
        let location = try #require(answer.header("Location"), "\(answer)")
        let requestId = try #require(answer.json["requestId"] as? String)
        #expect(!location.contains(requestId))
        #expect(await routes.get("/requests/" + requestId).status == 404)
        #expect(await routes.get("/registrations/" + requestId).status == 404)
    }
}
