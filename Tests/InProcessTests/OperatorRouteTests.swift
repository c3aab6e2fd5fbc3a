import Domain
import Foundation
@testable import TestSupport
import Testing

/// What the apps see of an account an operator disabled, through the gateway's handler in front of the in-process workers.
@Suite(.tags(.routes)) struct OperatorRouteTests {
    @Test func aDisabledAccountsTokensStopAtOnceAndItsSignInsAreToldWhy() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("disabled")
        _ = try await routes.system.register(email, password: "route disabled password")
        let tokens = try await routes.tokens(email, "route disabled password")
        let bearer = [("Authorization", "Bearer \(tokens.access)")]
        #expect(await routes.get("/me", headers: bearer).status == 200)

        #expect(try await routes.system.operate(.disable, email).state == "disabled")
        #expect(await routes.get("/me", headers: bearer).status == 401, "the old access token is refused at once")
        let refreshed = await routes.post("/oauth/token", form: [("grant_type", "refresh_token"), ("refresh_token", tokens.refresh)] + Routes.clientFields)
        #expect(refreshed.status == 400 && refreshed.json["error"] as? String == "invalid_grant", "an ended session learns nothing: \(refreshed)")
        let signIn = await routes.post("/oauth/token", form: [("grant_type", "password"), ("username", email), ("password", "route disabled password")]
                                       + Routes.clientFields)
        #expect(signIn.status == 403 && signIn.json["error"] as? String == "account_disabled", "\(signIn)")
        let guess = await routes.post("/oauth/token", form: [("grant_type", "password"), ("username", email), ("password", "a wrong guess")]
                                      + Routes.clientFields)
        #expect(guess.status == 400 && guess.json["error"] as? String == "invalid_grant", "a guess learns nothing: \(guess)")

        #expect(try await routes.system.operate(.enable, email).state == "active")
        #expect(await routes.get("/me", headers: bearer).status == 401, "enabling brings back no session")
        #expect(await routes.get("/me", headers: [("Authorization", "Bearer \(try await routes.tokens(email, "route disabled password").access)")]).status
                == 200)
    }
}
