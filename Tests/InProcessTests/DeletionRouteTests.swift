import Domain
import Foundation
@testable import TestSupport
import Testing

/// `DELETE /me` through the gateway's handler in front of the in-process workers.
@Suite(.tags(.routes)) struct DeletionRouteTests {
    @Test func aRecentSignInDeletesItsAccountAndItsTokensStopCounting() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("delete")
        let uid = try await routes.system.register(email, password: "route delete password")
        let tokens = try await routes.tokens(email, "route delete password")
        let bearer = [("Authorization", "Bearer \(tokens.access)")]
        #expect(await routes.send("DELETE", "/me").status == 401)
        let deleted = await routes.send("DELETE", "/me", headers: bearer + [("Accept-Language", "zh-CN")])
        #expect(deleted.status == 200 && deleted.json["deleted"] as? Bool == true && deleted.json["requestId"] is String, "\(deleted)")
        #expect(try routes.system.backends.accounts().account(uid: uid) == nil)
        #expect(await routes.get("/me", headers: bearer).status == 401)
        #expect(await routes.send("DELETE", "/me", headers: bearer).status == 401, "a deleted account's token deletes nothing more")
        let wrong = await routes.send("PUT", "/me", headers: bearer)
        #expect(wrong.status == 405 && wrong.header("Allow") == "DELETE, GET")
    }
}
