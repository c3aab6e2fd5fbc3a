import Domain
import Foundation
@testable import TestSupport
import Testing

/// The sign-out and session routes through the gateway's handler in front of the in-process workers: RFC 7009
/// revocation, `POST /me/sign-out`, `POST /me/sign-out-everywhere`, `GET /me/sessions`, `DELETE /me/sessions/{id}`.
@Suite(.tags(.routes)) struct SessionRouteTests {
    private static let basic = "Basic " + Data("\(Routes.clientID):\(Routes.clientSecret)".utf8).base64EncodedString()

    @Test func revokingARefreshTokenEndsItsSessionAndAnUnknownTokenIsStill200() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("revoke")
        _ = try await routes.system.register(email, password: "route revoke password")
        let tokens = try await routes.tokens(email, "route revoke password")
        let revoked = await routes.post("/oauth/revoke", form: [("token", tokens.refresh), ("token_type_hint", "refresh_token")],
                                        headers: [("Authorization", Self.basic)])
        #expect(revoked.status == 200 && revoked.header("Cache-Control") == "no-store", "\(revoked)")
        let refresh = await routes.post("/oauth/token", form: [("grant_type", "refresh_token"), ("refresh_token", tokens.refresh)]
                                            + Routes.clientFields)
        #expect(refresh.status == 400 && refresh.error == "invalid_grant", "\(refresh)")
        #expect(await routes.get("/me", headers: [("Authorization", "Bearer \(tokens.access)")]).status == 401)
        for token in ["never-issued", tokens.refresh] {
            let again = await routes.post("/oauth/revoke", form: [("token", token)], headers: [("Authorization", Self.basic)])
            #expect(again.status == 200, "\(again)")
        }
    }

    @Test func revocationNeedsAClientATokenAndAKnownHint() async throws {
        let routes = try await Routes.gateway()
        let anonymous = await routes.post("/oauth/revoke", form: [("token", "whatever")])
        #expect(anonymous.status == 401 && anonymous.error == "invalid_client", "\(anonymous)")
        let missing = await routes.post("/oauth/revoke", form: [], headers: [("Authorization", Self.basic)])
        #expect(missing.status == 400 && missing.error == "invalid_request", "\(missing)")
        let hint = await routes.post("/oauth/revoke", form: [("token", "t"), ("token_type_hint", "id_token")], headers: [("Authorization", Self.basic)])
        #expect(hint.status == 400 && hint.error == "unsupported_token_type", "\(hint)")
        let metadata = await routes.get("/.well-known/oauth-authorization-server")
        #expect((metadata.json["revocation_endpoint"] as? String)?.hasSuffix("/oauth/revoke") == true)
    }

    @Test func signOutEndsTheBearersSessionAndEverywhereEndsThemAll() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("signout")
        _ = try await routes.system.register(email, password: "route sign-out password")
        let (first, second, third) = (try await routes.tokens(email, "route sign-out password"),
                                      try await routes.tokens(email, "route sign-out password"),
                                      try await routes.tokens(email, "route sign-out password"))
        let bearer = { (token: String) in [("Authorization", "Bearer \(token)")] }
        let listed = await routes.get("/me/sessions", headers: bearer(first.access))
        let sessions = try #require(listed.json["sessions"] as? [[String: Any]], "\(listed)")
        #expect(listed.status == 200 && sessions.count == 3 && listed.header("Cache-Control") == "no-store")
        #expect(sessions.allSatisfy { $0["clientId"] as? String == Routes.clientID && $0["createdAt"] is String })
        #expect(sessions.filter { $0["current"] as? Bool == true }.count == 1)
        #expect(!listed.text.contains(first.refresh) && !listed.text.contains(first.access))

        let signedOut = await routes.post("/me/sign-out", form: [], headers: bearer(first.access))
        #expect(signedOut.status == 200 && signedOut.json["signedOut"] as? String == "session", "\(signedOut)")
        #expect(await routes.get("/me", headers: bearer(first.access)).status == 401)
        #expect(await routes.get("/me", headers: bearer(second.access)).status == 200)

        // Another session ended by id; an id the account does not have is 404.
        let secondId = try #require((await routes.get("/me/sessions", headers: bearer(second.access))).json["sessions"] as? [[String: Any]])
            .first { $0["current"] as? Bool != true }?["id"] as? String
        let ended = await routes.send("DELETE", "/me/sessions/\(try #require(secondId))", headers: bearer(second.access))
        #expect(ended.status == 200, "\(ended)")
        let unknown = await routes.send("DELETE", "/me/sessions/not-a-session", headers: bearer(second.access))
        #expect(unknown.status == 404 && unknown.error == ReasonCode.sessionUnknown.rawValue, "\(unknown)")
        #expect(await routes.get("/me/sessions/x", headers: bearer(second.access)).status == 405)

        // Its notice (in the language Accept-Language prefers) is checked by SessionTests, on a system of its own.
        let everywhere = await routes.post("/me/sign-out-everywhere", form: [], headers: bearer(second.access) + [("Accept-Language", "zh-CN")])
        #expect(everywhere.status == 200, "\(everywhere)")
        for token in [second.access, third.access] { #expect(await routes.get("/me", headers: bearer(token)).status == 401) }
    }

    @Test func theSessionRoutesWithoutOrWithABadTokenAre401() async throws {
        let routes = try await Routes.gateway()
        for (method, path) in [("POST", "/me/sign-out"), ("POST", "/me/sign-out-everywhere"), ("GET", "/me/sessions"), ("DELETE", "/me/sessions/s-1")] {
            let missing = await routes.send(method, path)
            #expect(missing.status == 401 && missing.header("WWW-Authenticate") == #"Bearer realm="registrar""#, "\(method) \(path)")
            let bad = await routes.send(method, path, headers: [("Authorization", "Bearer not-a-token")])
            #expect(bad.status == 401 && bad.header("WWW-Authenticate") == #"Bearer realm="registrar", error="invalid_token""#, "\(method) \(path)")
        }
    }
}

/// `GET /me/export` through the gateway's handler.
@Suite(.tags(.routes)) struct ExportRouteTests {
    @Test func aRecentSignInDownloadsItsData() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("export")
        let uid = try await routes.system.register(email, password: "route export password")
        let tokens = try await routes.tokens(email, "route export password")
        let answer = await routes.get("/me/export", headers: [("Authorization", "Bearer \(tokens.access)")])
        #expect(answer.status == 200 && answer.header("Content-Disposition") == #"attachment; filename="registrar-export.json""#, "\(answer)")
        #expect((answer.json["account"] as? [String: Any])?["uid"] as? String == uid)
        #expect((answer.json["profile"] as? [String: Any])?["email"] as? String == email)
        #expect((answer.json["sessions"] as? [[String: Any]])?.count == 1 && (answer.json["history"] as? [[String: Any]])?.count == 1)
        #expect(!answer.text.contains(tokens.refresh) && !answer.text.contains("argon2"))
        #expect(await routes.get("/me/export").status == 401)
    }
}
