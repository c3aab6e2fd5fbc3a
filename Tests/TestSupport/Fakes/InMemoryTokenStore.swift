import Domain
import Foundation
import SignIn
import Synchronization

/// Refresh tokens, their families and pending sign-ins in memory.
public final class InMemoryTokenStore: TokenStore {
    private struct State {
        var tokens: [String: RefreshToken] = [:]
        var revokedFamilies: Set<String> = []
        var pending: [String: PendingSignIn] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func store(_ token: RefreshToken) throws(StoreError) {
        state.withLock { $0.tokens[token.digest] = token }
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
                state.tokens[next.digest] = next
            case .revokeFamily:
                if let presented { state.revokedFamilies.insert(presented.family) }
            case .refuse:
                break
            }
            return decision
        }
    }

    public func revokeAll(uid: String) throws(StoreError) {
        state.withLock { state in
            state.revokedFamilies.formUnion(state.tokens.values.filter { $0.uid == uid }.map(\.family))
        }
    }

    public func family(_ id: String) throws(StoreError) -> TokenFamily? {
        state.withLock { Self.family(id, in: $0) }
    }

    public func liveFamilies(uid: String, at now: Date) throws(StoreError) -> [TokenFamily] {
        state.withLock { state in
            Set(state.tokens.values.filter { $0.uid == uid }.map(\.family)).compactMap { Self.family($0, in: state) }
                .filter { $0.isLive(at: now) }.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        }
    }

    @discardableResult
    public func revoke(family id: String, of uid: String) throws(StoreError) -> Bool {
        state.withLock { state in
            guard Self.family(id, in: state)?.uid == uid else { return false }
            state.revokedFamilies.insert(id)
            return true
        }
    }

    /// The family `id` as its tokens make it up: the first token's uid and client, the first and latest issue times.
    private static func family(_ id: String, in state: State) -> TokenFamily? {
        let members = state.tokens.values.filter { $0.family == id }.sorted { $0.issuedAt < $1.issuedAt }
        guard let first = members.first, let last = members.last else { return nil }
        return TokenFamily(id: id, uid: first.uid, clientId: first.clientId, createdAt: first.issuedAt, lastUsedAt: last.issuedAt,
                           expiresAt: members.map(\.expiresAt).max()!, revoked: state.revokedFamilies.contains(id))
    }

    @discardableResult
    public func forgetExpiredFamilies(expiredBefore cutoff: Date, limit: Int) throws(StoreError) -> Int {
        state.withLock { state in
            let newest = Dictionary(state.tokens.values.map { ($0.family, $0.expiresAt) }, uniquingKeysWith: max)
            let expired = Set(newest.filter { $0.value < cutoff }.keys.sorted().prefix(limit))
            state.tokens = state.tokens.filter { !expired.contains($0.value.family) }
            state.revokedFamilies.subtract(expired)
            return expired.count
        }
    }

    public func forget(uid: String) throws(StoreError) {
        state.withLock { state in
            let families = Set(state.tokens.values.filter { $0.uid == uid }.map(\.family))
            state.tokens = state.tokens.filter { $0.value.uid != uid }
            state.revokedFamilies.subtract(families)
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

    /// Every token stored.
    public var tokens: [RefreshToken] { state.withLock { state in state.tokens.values.map { Self.token($0.digest, in: state)! } } }

    private static func token(_ digest: String, in state: State) -> RefreshToken? {
        guard var token = state.tokens[digest] else { return nil }
        token.familyRevoked = state.revokedFamilies.contains(token.family)
        token.clientId = family(token.family, in: state)?.clientId
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
