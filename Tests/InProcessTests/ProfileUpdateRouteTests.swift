import Domain
import Foundation
@testable import TestSupport
import Testing

/// `PATCH /me` through the gateway's handler in front of the in-process workers: JSON, form and multipart, one answer per
/// reason.
@Suite(.tags(.routes)) struct ProfileUpdateRouteTests {
    @Test func patchMeChangesTheNameTheMapFlagAndTheAvatar() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("patch")
        let uid = try await routes.system.register(email, password: "route patch password")
        let tokens = try await routes.tokens(email, "route patch password")
        let bearer = [("Authorization", "Bearer \(tokens.access)")]
        let before = try #require(try routes.system.backends.profiles().profile(uid: uid))

        #expect(await routes.post("/me", body: Array(#"{"name":"x"}"#.utf8), type: "application/json", method: "PATCH").status == 401)
        let json = await routes.post("/me", body: Array(#"{"name":"Ada Lovelace","isMapLocationEnabled":true}"#.utf8), type: "application/json",
                                     headers: bearer, method: "PATCH")
        #expect(json.status == 200 && json.json["name"] as? String == "Ada Lovelace" && json.json["isMapLocationEnabled"] as? Bool == true
                && json.json["uid"] as? String == uid && json.json["profileImage"] as? String == before.profileImage, "\(json)")
        let form = await routes.post("/me", form: [("isMapLocationEnabled", "false")], headers: bearer, method: "PATCH")
        #expect(form.status == 200 && form.json["isMapLocationEnabled"] as? Bool == false && form.json["name"] as? String == "Ada Lovelace", "\(form)")

        let avatar = try await Fixtures.noiseJPEG(width: 200, height: 200)
        let multipart = await routes.postMultipart("/me", [("name", "Ada")], files: [("avatar", avatar)], headers: bearer, method: "PATCH")
        let image = try #require(multipart.json["profileImage"] as? String, "\(multipart)")
        #expect(multipart.status == 200 && image != before.profileImage && multipart.json["name"] as? String == "Ada")
        let shown = await routes.get("/me", headers: bearer)
        #expect(shown.status == 200 && shown.json["profileImage"] as? String == image && shown.json["name"] as? String == "Ada", "\(shown)")
        let oldKey = "ProfileImages/" + (before.profileImage.split(separator: "/").last ?? "")
        #expect(try !routes.system.backends.objects().contains(oldKey), "the old avatar is deleted")
    }

    @Test func aRefusedPatchSaysWhyAndChangesNothing() async throws {
        let routes = try await Routes.gateway()
        let email = Routes.email("patch-refused")
        let uid = try await routes.system.register(email, password: "route patch refused")
        let tokens = try await routes.tokens(email, "route patch refused")
        let bearer = [("Authorization", "Bearer \(tokens.access)")]
        let before = try routes.system.backends.profiles().profile(uid: uid)
        let patch = { (body: String) in
            await routes.post("/me", body: Array(body.utf8), type: "application/json", headers: bearer, method: "PATCH")
        }
        let empty = await patch(#"{"name":"  "}"#)
        #expect(empty.status == 422 && empty.error == "name_empty", "\(empty)")
        let nothing = await patch("{}")
        #expect(nothing.status == 422 && nothing.error == "profile_unchanged", "\(nothing)")
        let flag = await patch(#"{"isMapLocationEnabled":"maybe"}"#)
        #expect(flag.status == 400, "\(flag)")
        let inline = await patch(#"{"avatar":"AAEC"}"#)
        #expect(inline.status == 400, "an avatar travels as a multipart file: \(inline)")
        let junk = await routes.postMultipart("/me", [], files: [("avatar", Array("not an image".utf8))], headers: bearer, method: "PATCH")
        #expect(junk.status == 422 && junk.error == "image_not_an_image", "\(junk)")
        let text = await routes.post("/me", body: Array("name=x".utf8), type: "text/plain", headers: bearer, method: "PATCH")
        #expect(text.status == 415, "\(text)")
        let forged = await routes.post("/me", body: Array(#"{"name":"Pwned"}"#.utf8), type: "application/json",
                                       headers: [("Authorization", "Bearer \(tokens.access.dropLast(4))AAAA")], method: "PATCH")
        #expect(forged.status == 401, "\(forged)")
        #expect(try routes.system.backends.profiles().profile(uid: uid) == before)
    }
}
