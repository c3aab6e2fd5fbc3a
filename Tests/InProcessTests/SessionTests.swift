import Domain
import Foundation
import SignIn
@testable import TestSupport
import Testing

/// Sign-out, revocation and the list of sessions through the real workers in process: each ends exactly the sessions
/// it names — refresh tokens and access tokens alike — and the attacks (another account's token, a copied seal, a token
/// already signed out, a forged token) end nothing.
@Suite(.tags(.inProcess)) struct SessionTests {
    /// Two sign-ins of one account: signing one out ends its refresh and its access token, and the other goes on.
    @Test func signingOutEndsThisSessionOnly() async throws {
        try await InProcessSystem.with { system in
            let uid = try await system.register("two-phones@example.com", password: "two phones quartz lantern 42")
            let phone = try #require(try await system.signIn(.password, email: "two-phones@example.com", secret: "two phones quartz lantern 42").1)
            let tablet = try #require(try await system.signIn(.password, email: "two-phones@example.com", secret: "two phones quartz lantern 42").1)
            let (listed, list) = try await system.client.sessions(accessToken: phone.accessToken, timeout: .seconds(60))
            guard case .sessionsAnswered(let answered) = listed, let list else { Issue.record("not listed: \(listed)"); return }
            #expect(list.uid == uid && list.sessions.count == 2)
            #expect(list.sessions.filter(\.current).count == 1)
            // The list travels sealed: no uid, no session id in the clear.
            let wire = String(decoding: EventCodec.encode(.sessionsAnswered(answered)), as: UTF8.self)
            #expect(list.sessions.allSatisfy { !wire.contains($0.id) } && !wire.contains(uid))

            #expect(try await signedOut(system.client.signOut(.session, token: phone.accessToken, timeout: .seconds(60))))
            #expect(reason(try await system.client.profile(accessToken: phone.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: phone.refreshToken).0) == .invalidCredentials)
            guard case .profileAnswered = try await system.client.profile(accessToken: tablet.accessToken, timeout: .seconds(60)).0 else {
                Issue.record("the other session was signed out too")
                return
            }
            system.clock.advance(by: 5)
            let refreshed = try #require(try await system.signIn(.refreshToken, email: nil, secret: tablet.refreshToken).1)
            let remaining = try #require(try await system.client.sessions(accessToken: refreshed.accessToken, timeout: .seconds(60)).1)
            #expect(remaining.sessions.count == 1 && remaining.sessions[0].current)
            #expect(remaining.sessions[0].lastUsedAt > remaining.sessions[0].createdAt)
        }
    }

    /// RFC 7009: a refresh token revokes its session, an access token its own; an unknown, a forged or an already revoked
    /// token is answered the same `SignedOut`, and nothing of anyone's changes.
    @Test func aRevocationEndsTheTokensSessionAndSaysNothingOfOthers() async throws {
        try await InProcessSystem.with { system in
            _ = try await system.register("revoker@example.com", password: "revoker quartz lantern 42")
            let first = try #require(try await system.signIn(.password, email: "revoker@example.com", secret: "revoker quartz lantern 42").1)
            let second = try #require(try await system.signIn(.password, email: "revoker@example.com", secret: "revoker quartz lantern 42").1)
            #expect(try await signedOut(system.client.signOut(.revocation, token: first.refreshToken, timeout: .seconds(60))))
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: first.refreshToken).0) == .invalidCredentials)
            #expect(reason(try await system.client.profile(accessToken: first.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)
            #expect(try await signedOut(system.client.signOut(.revocation, token: second.accessToken, timeout: .seconds(60))))
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: second.refreshToken).0) == .invalidCredentials)

            let third = try #require(try await system.signIn(.password, email: "revoker@example.com", secret: "revoker quartz lantern 42").1)
            let before = try system.counts()
            for token in ["not-a-token", first.refreshToken, third.accessToken.dropLast(4) + "AAAA", "eyJhbGciOiJub25lIn0.e30."] {
                #expect(try await signedOut(system.client.signOut(.revocation, token: String(token), timeout: .seconds(60))), "\(token)")
            }
            #expect(try system.counts() == before)
            guard case .tokenIssued = try await system.signIn(.refreshToken, email: nil, secret: third.refreshToken).0 else {
                Issue.record("a forged or unknown token's revocation ended another session")
                return
            }
        }
    }

    /// Signing out everywhere ends every session — refresh tokens, and access tokens whatever session they name — mails a
    /// notice, and a sign-in afterwards works.
    @Test func signingOutEverywhereEndsEverySessionAndMailsANotice() async throws {
        try await InProcessSystem.with { system in
            _ = try await system.register("everywhere@example.com", password: "everywhere quartz lantern 42")
            var sessions: [TokenPair] = []
            for _ in 0..<3 {
                sessions.append(try #require(try await system.signIn(.password, email: "everywhere@example.com", secret: "everywhere quartz lantern 42").1))
            }
            let outcome = try await system.client.signOut(.everywhere, token: sessions[0].accessToken, locale: "zh-CN", requestId: "everywhere-1",
                                                          timeout: .seconds(60))
            #expect(try await signedOut(outcome))
            for session in sessions {
                #expect(reason(try await system.client.profile(accessToken: session.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)
                #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: session.refreshToken).0) == .invalidCredentials)
            }
            let notice = try system.email(kind: "notice", requestId: "everywhere-1")
            let subject = "您已在所有设备上退出Registrar"
            #expect(notice.contains("To: everywhere@example.com") && notice.contains("Subject: =?UTF-8?B?\(Data(subject.utf8).base64EncodedString())?="),
                    "\(notice)")
            #expect(!sessions.contains { notice.contains($0.accessToken) || notice.contains($0.refreshToken) })
            let fresh = try #require(try await system.signIn(.password, email: "everywhere@example.com", secret: "everywhere quartz lantern 42").1)
            guard case .profileAnswered = try await system.client.profile(accessToken: fresh.accessToken, timeout: .seconds(60)).0 else {
                Issue.record("a sign-in after signing out everywhere does not work")
                return
            }
            let listed = try #require(try await system.client.sessions(accessToken: fresh.accessToken, timeout: .seconds(60)).1)
            #expect(listed.sessions.count == 1)
        }
    }

    /// The attacks: another account's token names my session (refused like an unknown one, my session lives on), a
    /// sign-out's seal copied into another request (refused), a signed-out token used again (refused), and none changes
    /// anything.
    @Test func noOneElseCanEndOrSeeMySessions() async throws {
        try await InProcessSystem.with { system in
            _ = try await system.register("owner@example.com", password: "owner quartz lantern 42")
            _ = try await system.register("attacker@example.com", password: "attacker quartz lantern 42")
            let mine = try #require(try await system.signIn(.password, email: "owner@example.com", secret: "owner quartz lantern 42").1)
            let theirs = try #require(try await system.signIn(.password, email: "attacker@example.com", secret: "attacker quartz lantern 42").1)
            let myList = try #require(try await system.client.sessions(accessToken: mine.accessToken, timeout: .seconds(60)).1)
            let mySession = try #require(myList.sessions.first).id
            let theirList = try #require(try await system.client.sessions(accessToken: theirs.accessToken, timeout: .seconds(60)).1)
            #expect(!theirList.sessions.contains { $0.id == mySession })

            let stolen = try await system.client.signOut(.session, token: theirs.accessToken, sessionId: mySession, timeout: .seconds(60))
            #expect(reason(stolen) == .sessionUnknown)
            #expect(reason(try await system.client.signOut(.session, token: theirs.accessToken, sessionId: "no-such-session",
                                                           timeout: .seconds(60))) == .sessionUnknown)
            // My sign-outs' seals, copied into a request of another id, or narrowed to one session, or turned to
            // another of my sessions (each seen on the topic and published first), count for nothing.
            let other = try #require(try await system.signIn(.password, email: "owner@example.com", secret: "owner quartz lantern 42").1)
            let everywhere = system.client.signOut(.everywhere, token: mine.accessToken, requestId: "mine-1")
            var copied = everywhere
            copied.requestId = "copy-1"
            #expect(reason(try await system.send(.signOutRequested(copied))) == .invalidCredentials)
            copied = everywhere
            copied.scope = .session
            #expect(reason(try await system.send(.signOutRequested(copied))) == .invalidCredentials)
            let otherSession = try #require(try await system.client.sessions(accessToken: other.accessToken, timeout: .seconds(60)).1?
                .sessions.first(where: \.current)).id
            var turned = system.client.signOut(.session, token: mine.accessToken, sessionId: otherSession, requestId: "mine-2")
            turned.sessionId = mySession
            #expect(reason(try await system.send(.signOutRequested(turned))) == .invalidCredentials)
            for session in [mine, other] {
                guard case .profileAnswered = try await system.client.profile(accessToken: session.accessToken, timeout: .seconds(60)).0 else {
                    Issue.record("my session was ended by someone else")
                    return
                }
            }
            guard case .tokenIssued(_) = try await system.signIn(.refreshToken, email: nil, secret: mine.refreshToken).0 else {
                Issue.record("my session was ended by someone else")
                return
            }

            #expect(try await signedOut(system.client.signOut(.session, token: theirs.accessToken, timeout: .seconds(60))))
            #expect(reason(try await system.client.signOut(.everywhere, token: theirs.accessToken, timeout: .seconds(60))) == .invalidCredentials)
            #expect(reason(try await system.client.sessions(accessToken: theirs.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)
            #expect(try system.emails(kind: "notice").isEmpty)
        }
    }

    /// A refresh racing its session's sign-out: whichever comes first, the session ends, and a pair the refresh may have
    /// been issued is over too.
    @Test func aRefreshInFlightDoesNotOutliveItsSignOut() async throws {
        try await InProcessSystem.with { system in
            _ = try await system.register("racer@example.com", password: "racer quartz lantern 42")
            for _ in 0..<3 {
                let session = try #require(try await system.signIn(.password, email: "racer@example.com", secret: "racer quartz lantern 42").1)
                async let refreshed = system.signIn(.refreshToken, email: nil, secret: session.refreshToken)
                async let ended = system.client.signOut(.session, token: session.accessToken, timeout: .seconds(60))
                let (refresh, signOut) = try await (refreshed, ended)
                #expect(try await signedOut(signOut))
                if let pair = refresh.1 {
                    #expect(reason(try await system.client.profile(accessToken: pair.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)
                    #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: pair.refreshToken).0) == .invalidCredentials)
                }
            }
        }
    }

    private func signedOut(_ outcome: Event) async throws -> Bool {
        guard case .signedOut = outcome else {
            Issue.record("not signed out: \(outcome)")
            return false
        }
        return true
    }
}
