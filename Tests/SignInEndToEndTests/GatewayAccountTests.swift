import Domain
import Foundation
import Registration
import Support
@testable import TestSupport
import Testing

/// The messenger's flows through `registrar gateway` with curl: registration with and without an avatar,
/// the login guard, password change and reset, email change, deletion.
@Suite(.tags(.live), .serialized) struct GatewayAccountTests {
    static let basic = ["-u", "\(GatewayProcess.clientID):\(GatewayProcess.clientSecret)"]

    /// A password grant; returns the answer.
    static func signIn(_ gateway: GatewayProcess, _ email: String, _ password: String) async throws -> CurlRun {
        try await gateway.postForm("/oauth/token", [("grant_type", "password"), ("username", email), ("password", password)], basic)
    }

    @Test func registrationWithAndWithoutAnAvatarThenTheLoginGuard() async throws {
        try await LiveSystem.shared { system in
            try await GatewayProcess.with(system) { gateway in
                let avatar = system.directory + "/avatar.jpg"
                // Larger than a message carries inline: the gateway stages it for the image worker (a claim check).
                let image = try await Fixtures.noiseJPEG(width: 1000, height: 800)
                #expect(image.count > AvatarSource.inlineLimit)
                try Data(image).write(to: URL(fileURLWithPath: avatar))
                let email = "reg-\(UUID().uuidString.prefix(8))@example.com"
                let form = ["-F", "name=Ada", "-F", "email=\(email)", "-F", "password=correct horse battery", "-F", "isMapLocationEnabled=true"]
                // The register code, mailed to the address (getCode type 1), proves the mailbox: without it, nothing.
                let codeless = try await gateway.curl("/accounts", form)
                #expect(codeless.status == 422 && GatewayProcess.json(codeless)["error"] as? String == "code_required", "\(codeless.body)")
                let made = try await gateway.curl("/accounts", form + ["-F", "code=\(try await system.code(for: email, .register))",
                                                                       "-F", "avatar=@\(avatar);type=image/jpeg"])
                #expect(made.status == 201, "\(made.body)")
                let answer = GatewayProcess.json(made)
                let uid = try #require(answer["uid"] as? String)
                let profile = try #require(answer["profile"] as? [String: Any])
                #expect(profile["email"] as? String == email.lowercased() && profile["isMapLocationEnabled"] as? Bool == true)
                #expect((profile["profileImage"] as? String)?.isEmpty == false)
                let taken = try await gateway.curl("/accounts", form + ["-F", "code=\(try await system.code(for: email, .register))"])
                #expect(taken.status == 409 && GatewayProcess.json(taken)["error"] as? String == "email_taken", "\(taken.body)")
                let plainEmail = "plain-\(UUID().uuidString.prefix(8))@example.com"
                let plain = try await gateway.curl("/accounts", ["-F", "name=Bo", "-F", "email=\(plainEmail)", "-F", "password=another good passphrase",
                                                                 "-F", "code=\(try await system.code(for: plainEmail, .register))"])
                #expect(plain.status == 201, "\(plain.body)")
                let weakEmail = "weak-\(UUID().uuidString.prefix(8))@example.com"
                let weak = try await gateway.curl("/accounts", ["-F", "name=Cy", "-F", "email=\(weakEmail)", "-F", "password=short",
                                                                "-F", "code=\(try await system.code(for: weakEmail, .register))"])
                #expect(weak.status == 422 && GatewayProcess.json(weak)["error"] as? String == "password_too_short", "\(weak.body)")
                let notMultipart = try await gateway.postForm("/accounts", [("name", "Di"), ("email", "di@example.com"), ("password", "correct horse battery")])
                #expect(notMultipart.status == 415)
                // The login guard: complete, signed in; the profile image gone, refused with profile_incomplete.
                #expect(try await Self.signIn(gateway, email, "correct horse battery").status == 200)
                try await system.blankProfileImage(of: uid)
                let guarded = try await Self.signIn(gateway, email, "correct horse battery")
                #expect(guarded.status == 403 && GatewayProcess.json(guarded)["error"] as? String == "profile_incomplete", "\(guarded.body)")
            }
        }
    }

    @Test func anOversizedAvatarIsRefusedUnreadAndRegistersNothing() async throws {
        try await LiveSystem.shared { system in
            try await GatewayProcess.with(system) { gateway in
                let avatar = system.directory + "/huge.bin"
                try Data(repeating: 0xFF, count: ContractLimits.avatarBytes + 128 * 1024).write(to: URL(fileURLWithPath: avatar))
                let before = try await system.allTopicMessages().count
                let email = "huge-\(UUID().uuidString.prefix(8))@example.com"
                let huge = try await gateway.curl("/accounts", ["-F", "name=Huge", "-F", "email=\(email)", "-F", "password=correct horse battery",
                                                                "-F", "avatar=@\(avatar)"])
                #expect(huge.status == 413)
                #expect(try await system.allTopicMessages().count == before)
            }
        }
    }

    /// `DELETE /me` on the real binaries: the saga crosses the account, image and profile workers; the token stops
    /// counting, the avatar, profile and account are gone, and the address registers again.
    @Test func deletingTheAccountFreesItsAddress() async throws {
        try await LiveSystem.shared { system in
            let email = "delete-\(UUID().uuidString.prefix(8))@example.com"
            let uid = try await system.register(email, password: "leaving good passphrase")
            let accounts = try system.backends.accounts()
            let registrationId = try #require(try accounts.account(uid: uid)).registrationId
            let imageId = try #require(try accounts.saga(registrationId)).imageId
            try await GatewayProcess.with(system) { gateway in
                let signedIn = try await Self.signIn(gateway, email, "leaving good passphrase")
                let token = try #require(GatewayProcess.json(signedIn)["access_token"] as? String, "\(signedIn.body)")
                let bearer = ["-H", "Authorization: Bearer \(token)"]
                let deleted = try await gateway.curl("/me", ["-X", "DELETE", "-H", "Accept-Language: zh-CN", "--data-urlencode",
                                                             "password=leaving good passphrase"] + bearer)
                #expect(deleted.status == 200 && GatewayProcess.json(deleted)["deleted"] as? Bool == true, "\(deleted.body)")
                #expect(try await gateway.curl("/me", bearer).status == 401)
                #expect(try accounts.account(uid: uid) == nil && system.backends.profiles().profile(uid: uid) == nil)
                #expect(try !system.backends.objects().contains(AvatarStep.key(imageId: imageId)))
                #expect(try await Self.signIn(gateway, email, "leaving good passphrase").status != 200)
                let again = try await system.register(email, password: "returning good passphrase")
                #expect(again != uid)
                #expect(try await Self.signIn(gateway, email, "returning good passphrase").status == 200)
            }
        }
    }

    /// `PATCH /me` and `registrar update-profile` on the real binaries (issue 26 point 2): the name and the map flag as
    /// JSON, a new avatar larger than a message (staged by the gateway) as multipart, another from the CLI; each new
    /// avatar is stored, the profile switched to it and the old one deleted, so the account always has exactly one; a
    /// refused avatar changes nothing.
    @Test func updatingTheProfileThroughTheGatewayAndTheCommandLine() async throws {
        try await LiveSystem.shared { system in
            let email = "update-\(UUID().uuidString.prefix(8))@example.com"
            let uid = try await system.register(email, password: "updating good passphrase")
            let objects = try system.backends.objects()
            let registered = try #require(try system.backends.profiles().profile(uid: uid))
            try await GatewayProcess.with(system) { gateway in
                let signedIn = try await Self.signIn(gateway, email, "updating good passphrase")
                let token = try #require(GatewayProcess.json(signedIn)["access_token"] as? String, "\(signedIn.body)")
                let bearer = ["-H", "Authorization: Bearer \(token)"]
                let renamed = try await gateway.curl("/me", ["-X", "PATCH", "-H", "Content-Type: application/json", "--data",
                                                             #"{"name":"Ada Lovelace","isMapLocationEnabled":true}"#] + bearer)
                let answer = GatewayProcess.json(renamed)
                #expect(renamed.status == 200 && answer["name"] as? String == "Ada Lovelace" && answer["isMapLocationEnabled"] as? Bool == true
                        && answer["profileImage"] as? String == registered.profileImage, "\(renamed.body)")

                let avatar = system.directory + "/new-avatar.jpg"
                let image = try await Fixtures.noiseJPEG(width: 1000, height: 800)
                #expect(image.count > AvatarSource.inlineLimit)
                try Data(image).write(to: URL(fileURLWithPath: avatar))
                let switched = try await gateway.curl("/me", ["-X", "PATCH", "-F", "avatar=@\(avatar);type=image/jpeg"] + bearer)
                let newImage = try #require(GatewayProcess.json(switched)["profileImage"] as? String, "\(switched.body)")
                #expect(switched.status == 200 && newImage != registered.profileImage)
                let shown = try await gateway.curl("/me", bearer)
                #expect(GatewayProcess.json(shown)["profileImage"] as? String == newImage && GatewayProcess.json(shown)["name"] as? String == "Ada Lovelace")
                #expect(try objects.list(prefix: "ProfileImages/").filter { [registered.profileImage, newImage].contains(objects.url(for: $0.key)) }
                    .map { objects.url(for: $0.key) } == [newImage], "the old avatar is gone, the new one stored")

                try Data("not an image".utf8).write(to: URL(fileURLWithPath: system.directory + "/junk.jpg"))
                let junk = try await gateway.curl("/me", ["-X", "PATCH", "-F", "avatar=@\(system.directory)/junk.jpg;type=image/jpeg"] + bearer)
                #expect(junk.status == 422 && GatewayProcess.json(junk)["error"] as? String == "image_not_an_image", "\(junk.body)")
                #expect(try system.backends.profiles().profile(uid: uid)?.profileImage == newImage)

                let tokenFile = system.directory + "/update-token"
                try Data(token.utf8).write(to: URL(fileURLWithPath: tokenFile))
                let small = system.directory + "/small-avatar.jpg"
                try Data(try await Fixtures.noiseJPEG(width: 120, height: 120)).write(to: URL(fileURLWithPath: small))
                let cli = try await system.registrar(["update-profile", "--access-token-file", tokenFile, "--name", "Ada", "--map-location", "off",
                                                      "--avatar", small, "--json"])
                #expect(cli.status == 0 && cli.output.contains(#""outcome":"profile_updated""#), "\(cli.output)")
                let final = try #require(try system.backends.profiles().profile(uid: uid))
                #expect(final.name == "Ada" && !final.isMapLocationEnabled && final.profileImage != newImage && final.email == registered.email)
                #expect(try objects.list(prefix: "ProfileImages/").filter { [registered.profileImage, newImage, final.profileImage].contains(objects.url(for: $0.key)) }
                    .map { objects.url(for: $0.key) } == [final.profileImage])
                let refused = try await system.registrar(["update-profile", "--access-token-file", tokenFile, "--name", " "])
                #expect(refused.status == 1 && refused.output.contains("name_empty"), "\(refused.output)")
            }
        }
    }

    @Test func passwordChangeResetAndEmailChange() async throws {
        try await LiveSystem.shared { system in
            let email = "change-\(UUID().uuidString.prefix(8))@example.com"
            _ = try await system.register(email, password: "first good passphrase")
            try await GatewayProcess.with(system) { gateway in
                let wrong = try await gateway.postForm("/me/password", [("email", email), ("oldPassword", "not it"), ("newPassword", "second good passphrase")])
                #expect(wrong.status == 403 && GatewayProcess.json(wrong)["error"] as? String == "invalid_credentials", "\(wrong.body)")
                let changed = try await gateway.postForm("/me/password", [("email", email), ("oldPassword", "first good passphrase"),
                                                                          ("newPassword", "second good passphrase")])
                #expect(changed.status == 200 && GatewayProcess.json(changed)["change"] as? String == "change_password", "\(changed.body)")
                #expect(try await Self.signIn(gateway, email, "second good passphrase").status == 200)

                let resetCode = try await gateway.postForm("/email/getCode", [("emailAddress", email), ("type", "3")])
                let resetId = try #require(GatewayProcess.json(resetCode)["requestId"] as? String)
                let reset = try await gateway.postForm("/password/reset", [("email", email), ("code", try system.code(sentBy: resetId)),
                                                                           ("newPassword", "third good passphrase")])
                #expect(reset.status == 200, "\(reset.body)")
                #expect(try await Self.signIn(gateway, email, "third good passphrase").status == 200)

                let newEmail = "moved-\(UUID().uuidString.prefix(8))@example.com"
                let moveCode = try await gateway.postForm("/email/getCode", [("emailAddress", newEmail), ("type", "change_email")])
                let moveId = try #require(GatewayProcess.json(moveCode)["requestId"] as? String)
                let moved = try await gateway.postForm("/me/email", [("email", email), ("password", "third good passphrase"),
                                                                     ("newEmail", newEmail), ("code", try system.code(sentBy: moveId))])
                #expect(moved.status == 200, "\(moved.body)")
                #expect(try await Self.signIn(gateway, newEmail, "third good passphrase").status == 200)
                #expect(try await Self.signIn(gateway, email, "third good passphrase").status == 400)
                // The passwords left the gateway sealed: not on any topic, not in its log.
                let passwords = ["second good passphrase", "third good passphrase"]
                for message in try await system.allTopicMessages() {
                    let text = String(decoding: message.value, as: UTF8.self)
                    #expect(!passwords.contains(where: text.contains), "a password on \(message.topic)")
                }
                #expect(!passwords.contains(where: gateway.logText.contains))
            }
        }
    }
}
