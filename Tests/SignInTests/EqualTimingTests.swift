import Domain
import Foundation
import Registration
import SignIn
@testable import TestSupport
import Testing

/// A password sign-in does one hash verification whether the account exists, has a password or not.
@Suite(.tags(.unit)) struct EqualTimingTests {
    let now = Date(timeIntervalSince1970: 1_000_000)

    @Test func anAccountWithoutAPasswordIsVerifiedAgainstTheDecoyHash() throws {
        let accounts = InMemoryAccountStore()
        accounts.addActiveAccount(uid: "code-only", email: "code@example.com", passwordHash: "", at: now)
        accounts.addActiveAccount(uid: "with-password", email: "ada@example.com", passwordHash: "hash:ada password", at: now)
        let vault = CountingVault()
        let check = PasswordCheck(accounts: accounts, vault: vault)
        #expect(try check.authenticate(email: "nobody@example.com", password: "guess", at: now) == .refused)
        #expect(try check.authenticate(email: "code@example.com", password: "decoy password for unknown accounts", at: now) == .refused,
                "the decoy's own password does not open a code-only account")
        #expect(try check.authenticate(email: "ada@example.com", password: "guess", at: now) == .refused)
        let verified = vault.verified
        #expect(verified.count == 3)
        #expect(!verified[0].isEmpty && verified[1] == verified[0], "unknown and code-only accounts verify against the same decoy")
        #expect(verified[2] == "hash:ada password")
    }
}
