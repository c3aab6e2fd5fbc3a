import Domain
import Foundation

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

    /// What a password re-authentication found: one path for active and disabled accounts — the same lock check,
    /// failure count and single hash — so that a disabled account is told apart only by whoever knows its password.
    public enum Outcome: Sendable, Equatable {
        /// The password of an active account that is not locked out.
        case accepted(Account)
        /// The password of a disabled account that is not locked out (``LoginGuard/disabled``).
        case disabled
        /// No such account, no password, a wrong one, or a lock: one answer for all.
        case refused

        /// The account when accepted; nil otherwise.
        public var account: Account? {
            guard case .accepted(let account) = self else { return nil }
            return account
        }
    }

    /// Whether `password` is the password of the account of `email`, active or disabled, and it is not locked out.
    public func authenticate(email: String, password: String, at now: Date) throws(StoreError) -> Outcome {
        guard let account = try accounts.account(email: RegistrationRules.normalizedEmail(email)),
              [.active, .disabled].contains(account.status) else {
            _ = vault.verify(password, against: decoyHash)
            return .refused
        }
        // Hashing comes before any write, so that it never runs inside a unit of work's transaction.
        // An account made by code sign-in has no password (an empty hash): it never matches, in a hash's time.
        let hasPassword = !account.passwordHash.isEmpty
        let matches = vault.verify(password, against: hasPassword ? account.passwordHash : decoyHash) && hasPassword
        let rehashed = matches && vault.needsRehash(account.passwordHash) ? try? vault.hash(password) : nil
        guard try !isLocked(account, at: now) else { return .refused }
        try record(matches, for: account, at: now)
        guard matches else { return .refused }
        if let rehashed { try accounts.replacePasswordHash(uid: account.uid, from: account.passwordHash, to: rehashed) }
        return account.status == .active ? .accepted(account) : .disabled
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
