import Backends
import Domain
import Foundation
import SignIn
import SQLStores
import Synchronization
@testable import TestSupport
import Testing

/// What every `TokenStore` must do, checked against each implementation, the unit tests' fake (`InMemoryTokenStore`)
/// included.
@Suite(.tags(.production)) struct TokenStoreBehaviourTests {
    @Test(arguments: StoreBackend.allCases)
    func storedTokensAreFoundByDigest(backend: StoreBackend) throws {
        try backend.withTokenStore { (store) throws in
            let token = refreshToken("d1")
            try store.store(token)
            #expect(try store.token(digest: "d1") == token)
            #expect(try store.token(digest: "d2") == nil)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func rotationReplacesTheTokenAndAReuseRevokesTheFamily(backend: StoreBackend) throws {
        try backend.withTokenStore { (store) throws in
            try store.store(refreshToken("d1"))
            let next = refreshToken("d2", issuedBy: "q1")
            #expect(try store.refresh("d1", to: next) == .rotate)
            #expect(try store.token(digest: "d1")?.replacedBy == "q1")
            #expect(try store.token(digest: "d1")?.replacedWith == "client-1")
            #expect(try store.token(digest: "d2") == next)
            // The rotating request may rotate again (a redelivery) to its reply key; another one, or the
            // same request id with another reply key (a replay), is a reuse.
            #expect(try store.refresh("d1", to: refreshToken("d3", issuedBy: "q1")) == .rotate)
            #expect(try store.refresh("d1", to: refreshToken("d4", issuedBy: "q1"), replyKey: "attacker") == .revokeFamily)
            #expect(try store.token(digest: "d2")?.familyRevoked == true)
            #expect(try store.refresh("d2", to: refreshToken("d5", issuedBy: "q3")) == .refuse(.revoked))
            #expect(try store.refresh("d1", to: refreshToken("d7", issuedBy: "q2")) == .refuse(.revoked))
            #expect(try store.refresh("unknown", to: refreshToken("d6", issuedBy: "q4")) == .refuse(.unknown))
            #expect(try store.token(digest: "d6") == nil)
        }
    }

    /// Storing a token again (a retry after a lost commit) changes nothing: a rotation it went through stays.
    @Test(arguments: StoreBackend.allCases)
    func storingATokenAgainChangesNothing(backend: StoreBackend) throws {
        try backend.withTokenStore { (store) throws in
            try store.store(refreshToken("d1"))
            #expect(try store.refresh("d1", to: refreshToken("d2", issuedBy: "q1")) == .rotate)
            try store.store(refreshToken("d1"))
            #expect(try store.token(digest: "d1")?.replacedBy == "q1")
        }
    }

    /// A family is its first token's: its account, client and start stay those of the first token stored, whatever the
    /// issue times of those stored after it.
    @Test(arguments: StoreBackend.allCases)
    func aFamilyIsItsFirstStoredTokens(backend: StoreBackend) throws {
        try backend.withTokenStore { (store) throws in
            var first = refreshToken("a1", family: "phone")
            first.clientId = "ios-app"
            first.issuedAt = startDate.addingTimeInterval(60)
            try store.store(first)
            var earlier = refreshToken("a2", family: "phone", uid: "uid-2")
            earlier.clientId = "web"
            try store.store(earlier)
            let family = try #require(try store.family("phone"))
            #expect(family.uid == "uid-1" && family.clientId == "ios-app")
            #expect(family.createdAt == first.issuedAt && family.lastUsedAt == first.issuedAt)
            #expect(try store.token(digest: "a2")?.clientId == "ios-app")
        }
    }

    /// Several stores on one location stand for several worker processes.
    @Test(arguments: StoreBackend.allCases)
    func concurrentRefreshesWithOneTokenRotateItOnce(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let stores = try (0..<2).map { _ in try backend.tokenStore(at: url) }
            try stores[0].store(refreshToken("d1"))
            let decisions = Mutex<[RotationDecision]>([])
            onThreads(8) { index in
                let decision = try? stores[index % 2].refresh("d1", to: refreshToken("n\(index)", issuedBy: "q\(index)"))
                decisions.withLock { $0.append(contentsOf: decision.map { [$0] } ?? []) }
            }
            let outcomes = decisions.withLock { $0 }
            #expect(outcomes.count == 8)
            #expect(outcomes.filter { $0 == .rotate }.count == 1)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func revokeAllRevokesEveryFamilyOfTheAccount(backend: StoreBackend) throws {
        try backend.withTokenStore { (store) throws in
            try store.store(refreshToken("d1", family: "f1"))
            try store.store(refreshToken("d2", family: "f2"))
            try store.store(refreshToken("d3", family: "f3", uid: "uid-2"))
            try store.revokeAll(uid: "uid-1")
            #expect(try ["d1", "d2", "d3"].map { try store.token(digest: $0)?.familyRevoked } == [true, true, false])
        }
    }

    /// A family is a session: its client and sign-in time from its first token, its last use from its latest; only
    /// an account's live ones are listed, newest first; an account revokes only its own.
    @Test(arguments: StoreBackend.allCases)
    func familiesAreSessionsTheirAccountListsAndEnds(backend: StoreBackend) throws {
        try backend.withTokenStore { (store) throws in
            var first = refreshToken("a1", family: "phone")
            first.clientId = "ios-app"
            try store.store(first)
            var rotated = refreshToken("a2", family: "phone", issuedBy: "q1", expiresIn: 2 * 86_400)
            rotated.issuedAt = startDate.addingTimeInterval(60)
            #expect(try store.refresh("a1", to: rotated) == .rotate)
            var later = refreshToken("b1", family: "tablet")
            later.issuedAt = startDate.addingTimeInterval(30)
            try store.store(later)
            try store.store(refreshToken("c1", family: "expired", expiresIn: 10))
            try store.store(refreshToken("d1", family: "someone-else", uid: "uid-2"))

            let phone = TokenFamily(id: "phone", uid: "uid-1", clientId: "ios-app", createdAt: startDate,
                                    lastUsedAt: startDate.addingTimeInterval(60), expiresAt: startDate.addingTimeInterval(2 * 86_400), revoked: false)
            #expect(try store.family("phone") == phone)
            #expect(try store.token(digest: "a2")?.clientId == "ios-app")
            let now = startDate.addingTimeInterval(100)
            #expect(try store.liveFamilies(uid: "uid-1", at: now).map(\.id) == ["tablet", "phone"])

            #expect(try store.revoke(family: "someone-else", of: "uid-1") == false)
            #expect(try store.revoke(family: "no-such-family", of: "uid-1") == false)
            #expect(try store.token(digest: "d1")?.familyRevoked == false)
            #expect(try store.revoke(family: "phone", of: "uid-1"))
            #expect(try store.revoke(family: "phone", of: "uid-1"), "revoked before: still the account's")
            #expect(try store.token(digest: "a2")?.familyRevoked == true && store.family("phone")?.revoked == true)
            #expect(try store.liveFamilies(uid: "uid-1", at: now).map(\.id) == ["tablet"])
        }
    }

    /// The sweep's pruning: a family goes, with every token of it, once its newest token has expired; one with a
    /// token still valid stays whole, however old its rotated-away tokens are.
    @Test(arguments: StoreBackend.allCases)
    func familiesWhoseTokensHaveAllExpiredAreForgottenWithTheirTokens(backend: StoreBackend) throws {
        try backend.withTokenStore { (store) throws in
            let day = 86_400.0
            try store.store(refreshToken("old-1", family: "old", expiresIn: day))
            try store.store(refreshToken("old-2", family: "old", expiresIn: 2 * day))
            try store.store(refreshToken("live-1", family: "live", expiresIn: day))
            try store.store(refreshToken("live-2", family: "live", expiresIn: 10 * day))
            try store.store(refreshToken("other", family: "other", expiresIn: 3 * day))
            let cutoff = startDate.addingTimeInterval(5 * day)
            #expect(try store.forgetExpiredFamilies(expiredBefore: cutoff, limit: 1) == 1)
            #expect(try store.token(digest: "old-1") == nil && store.token(digest: "old-2") == nil)
            #expect(try store.token(digest: "other") != nil, "beyond the limit: the next sweep's")
            #expect(try store.forgetExpiredFamilies(expiredBefore: cutoff, limit: 100) == 1)
            #expect(try store.token(digest: "other") == nil)
            #expect(try store.token(digest: "live-1") != nil && store.token(digest: "live-2") != nil)
            #expect(try store.forgetExpiredFamilies(expiredBefore: cutoff, limit: 100) == 0)
            // A family's expiry follows its newest token, whatever order tokens are stored in.
            try store.store(refreshToken("late", family: "late", expiresIn: 10 * day))
            try store.store(refreshToken("early", family: "late", expiresIn: day))
            #expect(try store.forgetExpiredFamilies(expiredBefore: cutoff, limit: 100) == 0)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func aPendingSignInIsRecordedOnceByRequestAndByRegistration(backend: StoreBackend) throws {
        try backend.withTokenStore { (store) throws in
            let signIn = PendingSignIn(requestId: "r1", registrationId: "g1", email: "a@example.com", replyKey: "client-1", createdAt: startDate)
            #expect(try store.recordPending(signIn) == signIn)
            let again = PendingSignIn(requestId: "r1", registrationId: "g2", email: "b@example.com", replyKey: "client-2", createdAt: startDate)
            #expect(try store.recordPending(again) == signIn, "the first one stays")
            #expect(try store.pending(requestId: "r1") == signIn)
            #expect(try store.pending(registrationId: "g1") == signIn)
            #expect(try store.pending(requestId: "r2") == nil && store.pending(registrationId: "g2") == nil)
            let sameRegistration = PendingSignIn(requestId: "r3", registrationId: "g1", email: "c@example.com", replyKey: "k", createdAt: startDate)
            #expect(try store.recordPending(sameRegistration) == nil, "one pending sign-in per registration")
            #expect(try store.pending(registrationId: "g1") == signIn)
        }
    }

    /// A deleted account's address leaves no pending sign-in; the sweep forgets those recorded before its cut-off.
    @Test(arguments: StoreBackend.allCases)
    func pendingSignInsAreForgottenByAddressAndByAge(backend: StoreBackend) throws {
        try backend.withTokenStore { (store) throws in
            let leaver = PendingSignIn(requestId: "r1", registrationId: "g1", email: "leaver@example.com", replyKey: "k1", createdAt: startDate)
            let old = PendingSignIn(requestId: "r2", registrationId: "g2", email: "old@example.com", replyKey: "k2",
                                    createdAt: startDate.addingTimeInterval(-3_600))
            let recent = PendingSignIn(requestId: "r3", registrationId: "g3", email: "recent@example.com", replyKey: "k3", createdAt: startDate)
            for signIn in [leaver, old, recent] { try store.recordPending(signIn) }
            try store.forgetPending(email: "leaver@example.com")
            #expect(try store.pending(requestId: "r1") == nil && store.pending(registrationId: "g1") == nil)
            #expect(try store.forgetPending(recordedBefore: startDate.addingTimeInterval(-60)) == 1)
            #expect(try store.pending(requestId: "r2") == nil && store.pending(requestId: "r3") == recent)
        }
    }
}

private func refreshToken(_ digest: String, family: String = "f1", uid: String = "uid-1", issuedBy: String = "q0",
                          expiresIn lifetime: TimeInterval = 86_400) -> RefreshToken {
    RefreshToken(digest: digest, family: family, uid: uid, issuedBy: issuedBy, issuedAt: startDate,
                 expiresAt: startDate.addingTimeInterval(lifetime))
}

private extension TokenStore {
    /// Refreshes with the token `digest` as the sign-in step decides, by `next`'s request answered to
    /// `replyKey`, at `startDate`.
    func refresh(_ digest: String, to next: RefreshToken, replyKey: String = "client-1") throws(StoreError) -> RotationDecision {
        try rotate(digest: digest, to: next, replyKey: replyKey) {
            RotationDecision.on($0, requestId: next.issuedBy, replyKey: replyKey, at: startDate)
        }
    }
}
