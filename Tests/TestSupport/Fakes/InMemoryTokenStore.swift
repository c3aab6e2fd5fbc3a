import Domain
import Foundation
import SignIn
import Synchronization

/// Refresh tokens, their families and pending sign-ins in memory, as the SQL token store keeps them: a family is
/// recorded by its first token stored (its account, client and start) and follows its newest (its last use and expiry);
/// a token or a pending sign-in stored again changes nothing.
public final class InMemoryTokenStore: TokenStore {
    private struct State {
        var tokens: [String: RefreshToken] = [:]
        var families: [String: TokenFamily] = [:]
        var pending: [String: PendingSignIn] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func store(_ token: RefreshToken) throws(StoreError) {
        state.withLock { Self.insert(token, in: &$0) }
    }

    public func token(digest: String) throws(StoreError) -> RefreshToken? {
        state.withLock { Self.token(digest, in: $0) }
    }

    public func rotate(digest: String, to next: RefreshToken, replyKey: String,
                       deciding decide: (RefreshToken?) -> RotationDecision) throws(StoreError) -> RotationDecision {
        state.withLock { state in
            let presented = Self.token(digest, in: state)
            let decision = decide(presented)
            switch decision {
            case .rotate:
                state.tokens[digest]?.replacedBy = next.issuedBy
                state.tokens[digest]?.replacedWith = replyKey
                Self.insert(next, in: &state)
            case .revokeFamily:
                if let presented { state.families[presented.family]?.revoked = true }
            case .refuse:
                break
            }
            return decision
        }
    }

    public func revokeAll(uid: String) throws(StoreError) {
        state.withLock { state in
            for (id, family) in state.families where family.uid == uid { state.families[id]?.revoked = true }
        }
    }

    public func family(_ id: String) throws(StoreError) -> TokenFamily? {
        state.withLock { $0.families[id] }
    }

    public func liveFamilies(uid: String, at now: Date) throws(StoreError) -> [TokenFamily] {
        state.withLock { state in
            state.families.values.filter { $0.uid == uid && !$0.revoked && $0.expiresAt > now }
                .sorted { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.id < $1.id }
        }
    }

    @discardableResult
    public func revoke(family id: String, of uid: String) throws(StoreError) -> Bool {
        state.withLock { state in
            guard state.families[id]?.uid == uid else { return false }
            state.families[id]?.revoked = true
            return true
        }
    }

    @discardableResult
    public func forgetExpiredFamilies(expiredBefore cutoff: Date, limit: Int) throws(StoreError) -> Int {
        state.withLock { state in
            let expired = Set(state.families.values.filter { $0.expiresAt < cutoff }.sorted { ($0.expiresAt, $0.id) < ($1.expiresAt, $1.id) }
                .prefix(limit).map(\.id))
            state.tokens = state.tokens.filter { !expired.contains($0.value.family) }
            state.families = state.families.filter { !expired.contains($0.key) }
            return expired.count
        }
    }

    public func forget(uid: String) throws(StoreError) {
        state.withLock { state in
            state.tokens = state.tokens.filter { $0.value.uid != uid }
            state.families = state.families.filter { $0.value.uid != uid }
        }
    }

    @discardableResult
    public func recordPending(_ signIn: PendingSignIn) throws(StoreError) -> PendingSignIn? {
        state.withLock { state in
            let taken = state.pending.values.contains { $0.registrationId == signIn.registrationId }
            if state.pending[signIn.requestId] == nil, !taken { state.pending[signIn.requestId] = signIn }
            return state.pending[signIn.requestId]
        }
    }

    public func pending(requestId: String) throws(StoreError) -> PendingSignIn? {
        state.withLock { $0.pending[requestId] }
    }

    public func pending(registrationId: String) throws(StoreError) -> PendingSignIn? {
        state.withLock { $0.pending.values.first { $0.registrationId == registrationId } }
    }

    public func forgetPending(email: String) throws(StoreError) {
        state.withLock { $0.pending = $0.pending.filter { $0.value.email != email } }
    }

    @discardableResult
    public func forgetPending(recordedBefore date: Date) throws(StoreError) -> Int {
        state.withLock { state in
            let before = state.pending.count
            state.pending = state.pending.filter { $0.value.createdAt >= date }
            return before - state.pending.count
        }
    }

    /// Every token stored, by digest.
    public var tokens: [RefreshToken] {
        state.withLock { state in state.tokens.keys.sorted().compactMap { Self.token($0, in: state) } }
    }

    /// Stores `token` unless its digest is stored already: its family is recorded by its first token, and takes the
    /// latest issue and expiry of its tokens.
    private static func insert(_ token: RefreshToken, in state: inout State) {
        var family = state.families[token.family] ?? TokenFamily(
            id: token.family, uid: token.uid, clientId: token.clientId, createdAt: token.issuedAt, lastUsedAt: token.issuedAt,
            expiresAt: token.expiresAt, revoked: false)
        family.expiresAt = max(family.expiresAt, token.expiresAt)
        family.lastUsedAt = max(family.lastUsedAt, token.issuedAt)
        state.families[token.family] = family
        guard state.tokens[token.digest] == nil else { return }
        var stored = token
        stored.familyRevoked = false
        stored.clientId = nil
        state.tokens[token.digest] = stored
    }

    /// The token `digest` as read with its family: revoked with it, and of its client.
    private static func token(_ digest: String, in state: State) -> RefreshToken? {
        guard var token = state.tokens[digest], let family = state.families[token.family] else { return nil }
        token.familyRevoked = family.revoked
        token.clientId = family.clientId
        return token
    }
}

/// Tokens without signatures: the access token names its subject and id, refresh tokens count up,
/// and a digest is `digest:` + the token.
public final class FakeMinter: TokenMinter {
    private let minted = Mutex(0)

    public init() {}

    public func accessToken(subject: String, id: String, session: String?, issuedAt: Date, expiresAt: Date) throws -> String {
        "access:\(subject):\(Int(expiresAt.timeIntervalSince(issuedAt)))"
    }

    public func newRefreshToken() -> String {
        "refresh-" + String(minted.withLock { count in
            count += 1
            return count
        })
    }

    public func digest(of refreshToken: String) -> String { "digest:" + refreshToken }
}
