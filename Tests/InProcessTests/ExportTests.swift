import Domain
import Foundation
import SignIn
@testable import TestSupport
import Testing

/// The export through the real workers in process: everything stored about the account, nothing secret, sealed to the
/// requester, only for a recent sign-in of the account itself.
@Suite(.tags(.inProcess)) struct ExportTests {
    @Test func aRecentSignInExportsItsAccountProfileSessionsAndHistoryWithoutSecrets() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("exporter@example.com", password: "exporter quartz lantern 42")
            let older = try #require(try await system.signIn(.password, email: "exporter@example.com", secret: "exporter quartz lantern 42").1)
            let changed = try await system.send(.passwordChangeRequested(system.client.passwordChange(
                email: "exporter@example.com", password: "exporter quartz lantern 42", newPassword: "exporter new quartz lantern 42", requestId: "export-change")))
            guard case .accountChangeCompleted = changed else { Issue.record("change refused: \(changed)"); return }
            let tokens = try #require(try await system.signIn(.password, email: "exporter@example.com", secret: "exporter new quartz lantern 42").1)
            let (outcome, export) = try await system.client.export(accessToken: tokens.accessToken, timeout: .seconds(60))
            guard case .exportAnswered(let answered) = outcome, let export else { Issue.record("not exported: \(outcome)"); return }
            #expect(export.account.uid == uid && export.account.email == "exporter@example.com" && export.account.status == "active")
            #expect(export.account.hasPassword)
            #expect(export.profile == (try system.backends.profiles().profile(uid: uid)))
            #expect(export.sessions.count == 1 && export.sessions[0].current, "the password change ended the older session")
            #expect(export.history.map(\.type) == ["registration", "change_password"])
            #expect(export.history.allSatisfy { $0.outcome == "completed" })
            // Nothing secret in it, and nothing readable on the topic.
            let document = String(decoding: export.document, as: UTF8.self)
            let hash = try #require(try system.backends.accounts().account(uid: uid)).passwordHash
            for secret in [hash, tokens.accessToken, tokens.refreshToken, older.refreshToken, "exporter new password"] {
                #expect(!document.contains(secret))
            }
            let wire = String(decoding: EventCodec.encode(outcome), as: UTF8.self)
            #expect(!wire.contains(uid) && !wire.contains("exporter@example.com") && !answered.sealedExport.isEmpty)
        }
    }

    /// An older session's token (past the re-authentication window, a minute here), a signed-out one, or a token whose
    /// seal is copied into another request: no export, and each only ever of the token's own account.
    @Test func anOlderOrSignedOutSessionOrACopiedSealExportsNothing() async throws {
        try await InProcessSystem.with(extraArguments: ["account-worker": ["--reauthentication-window", "60"]]) { system in
            _ = try await system.register("stale@example.com", password: "stale quartz lantern 42")
            _ = try await system.register("other@example.com", password: "other quartz lantern 42")
            let stale = try #require(try await system.signIn(.password, email: "stale@example.com", secret: "stale quartz lantern 42").1)
            system.clock.advance(by: 61)
            let (late, none) = try await system.client.export(accessToken: stale.accessToken, timeout: .seconds(60))
            #expect(reason(late) == .reauthenticationRequired && none == nil)

            let fresh = try #require(try await system.signIn(.password, email: "stale@example.com", secret: "stale quartz lantern 42").1)
            let sealed = system.client.seal(fresh.accessToken, for: .export, requestId: "export-1", email: nil)
            let copied = BearerRequest(requestId: "export-2", sealedAccessToken: sealed, replyKey: system.client.replyKey(for: "export-2"))
            #expect(reason(try await system.send(.exportRequested(copied))) == .invalidCredentials)
            // A seal for another purpose (a profile read's) does not export.
            let profileSeal = BearerRequest(requestId: "export-3", sealedAccessToken: system.client.seal(
                fresh.accessToken, for: .accessToken, requestId: "export-3", email: nil), replyKey: system.client.replyKey(for: "export-3"))
            #expect(reason(try await system.send(.exportRequested(profileSeal))) == .invalidCredentials)

            let other = try #require(try await system.signIn(.password, email: "other@example.com", secret: "other quartz lantern 42").1)
            let theirs = try #require(try await system.client.export(accessToken: other.accessToken, timeout: .seconds(60)).1)
            #expect(theirs.account.email == "other@example.com")

            guard case .signedOut = try await system.client.signOut(.session, token: fresh.accessToken, timeout: .seconds(60)) else {
                Issue.record("not signed out")
                return
            }
            #expect(reason(try await system.client.export(accessToken: fresh.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)
        }
    }
}
