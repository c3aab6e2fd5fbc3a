import Domain
import Foundation
import Registration
import Verification

/// Re-authentication by password, shared by sign-in and account changes: counts failures per
/// account, refuses locked accounts exactly like a wrong password (same answer, same work), and
/// rehashes the password when the hashing parameters changed. Wrong one-time codes are counted per
/// account too, apart from passwords (``FailureKind``).
public struct PasswordCheck: Sendable {
    public var accounts: any CredentialStore
    public var vault: any CredentialVault
    public var lockout: LockoutPolicy
    public var codeLockout: LockoutPolicy
    /// Told of each lock an account earns, with the kind of failures that earned it (e.g. to count lockouts).
    public var onLock: @Sendable (FailureKind) -> Void
    /// Verified against when there is no account or no password, so that both take a hash's time too.
    private let decoyHash: String

    public init(accounts: any CredentialStore, vault: any CredentialVault, lockout: LockoutPolicy = .init(),
                codeLockout: LockoutPolicy = .codes, onLock: @escaping @Sendable (FailureKind) -> Void = { _ in }) {
        self.accounts = accounts
        self.vault = vault
        self.lockout = lockout
        self.codeLockout = codeLockout
        self.onLock = onLock
        decoyHash = (try? vault.hash("decoy password for unknown accounts")) ?? ""
    }

    /// The active account of `email` if `password` is its password and it is not locked out; nil otherwise.
    public func authenticate(email: String, password: String, at now: Date) throws(StoreError) -> Account? {
        guard let account = try accounts.account(email: RegistrationRules.normalizedEmail(email)), account.status == .active else {
            _ = vault.verify(password, against: decoyHash)
            return nil
        }
        // Hashing comes before any write, so that it never runs inside a unit of work's transaction.
        // An account made by code sign-in has no password (an empty hash): it never matches, in a hash's time.
        let hasPassword = !account.passwordHash.isEmpty
        let matches = vault.verify(password, against: hasPassword ? account.passwordHash : decoyHash) && hasPassword
        let rehashed = matches && vault.needsRehash(account.passwordHash) ? try? vault.hash(password) : nil
        guard try !isLocked(account, at: now) else { return nil }
        try record(matches, for: account, at: now)
        guard matches else { return nil }
        if let rehashed { try accounts.replacePasswordHash(uid: account.uid, from: account.passwordHash, to: rehashed) }
        return account
    }

    /// Whether the account of `email` is disabled (``AccountStatus/disabled``) and `password` is its password: only then is
    /// a sign-in or a change told so (``LoginGuard/disabled``), never anyone who does not know the password.
    public func isDisabled(email: String, password: String) throws(StoreError) -> Bool {
        guard let account = try accounts.account(email: RegistrationRules.normalizedEmail(email)), account.status == .disabled,
              account.hasPassword else { return false }
        return vault.verify(password, against: account.passwordHash)
    }

    /// Whether the account's password paths are locked out now.
    public func isLocked(_ account: Account, at now: Date) throws(StoreError) -> Bool {
        try accounts.updateFailures(uid: account.uid, of: .password) { lockout.isLocked($0, at: now) }
    }

    /// Counts a failed password, or clears both counts after a successful sign-in of any kind.
    public func record(_ success: Bool, for account: Account, at now: Date) throws(StoreError) {
        guard success else { return try fail(account, of: .password, under: lockout, at: now) }
        for kind in FailureKind.allCases { try accounts.updateFailures(uid: account.uid, of: kind) { $0 = SignInFailures() } }
    }

    /// Checks a one-time code with `codes` (see ``CodeVerifier/verify(_:email:purposes:requestId:replyKey:at:)``),
    /// counting wrong digits against `account` when it is active: while its code paths are locked the digits
    /// are refused unchecked (``CodeRejection/locked``). A recovery code cannot be guessed, so it is checked whatever
    /// the counts say: the owner of the mailbox always gets in. A right code clears both counts.
    public func verify(code: String, with codes: CodeVerifier, for account: Account?, email: String, purposes: [CodePurpose],
                       requestId: String, replyKey: String? = nil, at now: Date) throws(StoreError) -> CodeRejection? {
        guard let account, account.status == .active else {
            return try codes.verify(code, email: email, purposes: purposes, requestId: requestId, replyKey: replyKey, at: now)
        }
        if case .digits? = CodeForm(code), try accounts.updateFailures(uid: account.uid, of: .code, { codeLockout.isLocked($0, at: now) }) {
            return .locked
        }
        let rejection = try codes.verify(code, email: email, purposes: purposes, requestId: requestId, replyKey: replyKey, at: now)
        switch rejection {
        case nil: try record(true, for: account, at: now)
        case .mismatch?: try fail(account, of: .code, under: codeLockout, at: now)
        default: break
        }
        return rejection
    }

    /// Counts a failure of `kind` against `account`, telling `onLock` when it locks the account.
    private func fail(_ account: Account, of kind: FailureKind, under policy: LockoutPolicy, at now: Date) throws(StoreError) {
        let locked = try accounts.updateFailures(uid: account.uid, of: kind) { failures in
            let before = failures.lockedUntil
            failures = policy.failed(failures, at: now)
            return failures.lockedUntil != before && policy.isLocked(failures, at: now)
        }
        if locked { onLock(kind) }
    }
}
