import Domain
import Foundation
import Registration

/// Re-authentication by password, shared by sign-in and account changes: counts failures per
/// account, refuses locked accounts exactly like a wrong password (same answer, same work), and
/// rehashes the password when the hashing parameters changed.
public struct PasswordCheck: Sendable {
    public var accounts: any CredentialStore
    public var vault: any CredentialVault
    public var lockout: LockoutPolicy
    /// Verified against when there is no account, so that unknown emails take a hash's time too.
    private let decoyHash: String

    public init(accounts: any CredentialStore, vault: any CredentialVault, lockout: LockoutPolicy = .init()) {
        self.accounts = accounts
        self.vault = vault
        self.lockout = lockout
        decoyHash = (try? vault.hash("decoy password for unknown accounts")) ?? ""
    }

    /// The active account of `email` if `password` is its password and it is not locked out; nil otherwise.
    public func authenticate(email: String, password: String, at now: Date) throws(StoreError) -> Account? {
        guard let account = try accounts.account(email: RegistrationRules.normalizedEmail(email)), account.status == .active else {
            _ = vault.verify(password, against: decoyHash)
            return nil
        }
        let locked = try isLocked(account, at: now)
        let matches = vault.verify(password, against: account.passwordHash)
        guard !locked else { return nil }
        try record(matches, for: account, at: now)
        guard matches else { return nil }
        if vault.needsRehash(account.passwordHash), let rehashed = try? vault.hash(password) {
            try accounts.replacePasswordHash(uid: account.uid, with: rehashed)
        }
        return account
    }

    /// Whether the account is locked out now.
    public func isLocked(_ account: Account, at now: Date) throws(StoreError) -> Bool {
        try accounts.updateFailures(uid: account.uid) { lockout.isLocked($0, at: now) }
    }

    /// Counts a failed sign-in, or clears the count after a successful one.
    public func record(_ success: Bool, for account: Account, at now: Date) throws(StoreError) {
        try accounts.updateFailures(uid: account.uid) { failures in
            failures = success ? SignInFailures() : lockout.failed(failures, at: now)
        }
    }
}
