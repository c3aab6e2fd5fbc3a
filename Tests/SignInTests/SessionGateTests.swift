import Foundation
import Registration
import SignIn
@testable import TestSupport
import Testing

/// An access token counts only for an active account: a disabled one, or one being deleted, is refused by the gate
/// itself, whatever its sessions (defence in depth behind ending them).
@Suite(.tags(.unit)) struct SessionGateTests {
    let now = Date(timeIntervalSince1970: 1_000_000)

    /// Verifies every token as issued to `u` a second before `now`, with no session named.
    struct AnyToken: AccessTokenCheck {
        let issuedAt: Date
        func subject(of token: String, at now: Date) -> AccessTokenSubject? { AccessTokenSubject(uid: "u", issuedAt: issuedAt) }
    }

    @Test func aTokenOfAnAccountThatIsNotActiveCountsNoMore() throws {
        let accounts = InMemoryAccountStore()
        accounts.addActiveAccount(uid: "u", email: "a@example.com", passwordHash: "hash:a", at: now.addingTimeInterval(-60))
        let gate = SessionGate(accessTokens: AnyToken(issuedAt: now.addingTimeInterval(-1)), accounts: accounts, tokens: InMemoryTokenStore())
        #expect(try gate.caller(of: "token", at: now)?.account.uid == "u")
        for status in [AccountStatus.disabled, .deleting, .pending] {
            accounts.setStatus(status, of: "u")
            #expect(try gate.caller(of: "token", at: now) == nil, "\(status)")
        }
    }
}
