import Domain
import Foundation
@testable import TestSupport
import Testing

/// `DELETE /me` through the gateway's handler in front of the in-process workers.
@Suite(.tags(.routes)) struct DeletionRouteTests {
    @Test func aRecentSignInWithItsPasswordDeletesItsAccountAndItsTokensStopCounting() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("delete")
        let uid = try await routes.system.register(email, password: "route delete password")
        let tokens = try await routes.tokens(email, "route delete password")
        let bearer = [("Authorization", "Bearer \(tokens.access)")]
        #expect(await routes.send("DELETE", "/me").status == 401)
        let bare = await routes.send("DELETE", "/me", headers: bearer)
        #expect(bare.status == 400 && bare.json["error_description"].map { "\($0)".contains("password or code") } == true, "\(bare)")
        let both = await routes.post("/me", form: [("password", "route delete password"), ("code", "123456")], headers: bearer, method: "DELETE")
        #expect(both.status == 400, "\(both)")
        let wrong = await routes.post("/me", form: [("password", "not the route password")], headers: bearer, method: "DELETE")
        #expect(wrong.status == 401, "\(wrong)")
        #expect(try routes.system.backends.accounts().account(uid: uid)?.status == .active)
        let deleted = await routes.post("/me", form: [("password", "route delete password")], headers: bearer + [("Accept-Language", "zh-CN")],
                                        method: "DELETE")
        #expect(deleted.status == 200 && deleted.json["deleted"] as? Bool == true && deleted.json["requestId"] is String, "\(deleted)")
        #expect(try routes.system.backends.accounts().account(uid: uid) == nil)
        #expect(await routes.get("/me", headers: bearer).status == 401)
        #expect(await routes.post("/me", form: [("password", "route delete password")], headers: bearer, method: "DELETE").status == 401,
                "a deleted account's token deletes nothing more")
        let put = await routes.send("PUT", "/me", headers: bearer)
        #expect(put.status == 405 && put.header("Allow") == "DELETE, GET, PATCH")
    }

    @Test func aDeleteAccountCodeFromGetCodeDeletesTheAccount() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("delete-by-code")
        let uid = try await routes.system.register(email, password: "route delete by code")
        let tokens = try await routes.tokens(email, "route delete by code")
        let sent = await routes.post("/email/getCode", form: [("emailAddress", email), ("type", "delete_account")])
        #expect(sent.status == 200 && sent.json["purpose"] as? String == "delete_account", "\(sent)")
        let code = try routes.system.code(sentBy: try #require(sent.json["requestId"] as? String))
        let deleted = await routes.post("/me", body: Array(#"{"code":"\#(code)"}"#.utf8), type: "application/json",
                                        headers: [("Authorization", "Bearer \(tokens.access)")], method: "DELETE")
        #expect(deleted.status == 200 && deleted.json["deleted"] as? Bool == true, "\(deleted)")
        #expect(try routes.system.backends.accounts().account(uid: uid) == nil)
    }
}
