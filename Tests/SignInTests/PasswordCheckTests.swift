import Domain
import Foundation
import Registration
@testable import SignIn
import Synchronization
@testable import TestSupport
import Testing

/// Re-authentication: rehash on parameter change, lockout answering like a wrong password, unknown emails.
@Suite(.tags(.unit)) struct PasswordCheckTests {
    let now = Date(timeIntervalSince1970: 1_000_000)

    func check(hash: String = "v2:right password", status: AccountStatus = .active) -> (PasswordCheck, InMemoryAccountStore) {
        let accounts = store(hash: hash, status: status)
        return (PasswordCheck(accounts: accounts, vault: VersionedVault()), accounts)
    }

    /// A store of the one account `u`, of a@example.com, with `hash`, in `status`.
    func store(hash: String, status: AccountStatus = .active) -> InMemoryAccountStore {
        let accounts = InMemoryAccountStore()
        accounts.addActiveAccount(uid: "u", email: "a@example.com", passwordHash: hash, at: now)
        accounts.setStatus(status, of: "u")
        return accounts
    }

    @Test func aHashWithOldParametersIsReplacedAtSignIn() throws {
        let (check, accounts) = check(hash: "v1:right password")
        #expect(try check.authenticate(email: " A@Example.com", password: "right password", at: now).account?.uid == "u")
        #expect(try accounts.account(uid: "u")?.passwordHash == "v2:right password")
    }

    @Test func aLockedAccountRefusesTheRightPasswordAndCountsNothing() throws {
        let (check, accounts) = check()
        for _ in 1...5 { #expect(try check.authenticate(email: "a@example.com", password: "wrong", at: now) == .refused) }
        let locked = accounts.failures(uid: "u")
        #expect(locked.consecutive == 5 && locked.lockedUntil == now.addingTimeInterval(60))
        #expect(try check.authenticate(email: "a@example.com", password: "right password", at: now.addingTimeInterval(59)) == .refused)
        #expect(accounts.failures(uid: "u") == locked)
        #expect(try check.authenticate(email: "a@example.com", password: "right password", at: now.addingTimeInterval(60)).account != nil)
        #expect(accounts.failures(uid: "u") == SignInFailures())
    }

    /// A disabled account is said so only for its right password, and guesses at it count and lock exactly like an
    /// active account's: the answer is no oracle, however many guesses.
    @Test func aDisabledAccountCountsGuessesAndLocksLikeAnActiveOne() throws {
        let (check, accounts) = check(status: .disabled)
        for _ in 1...5 { #expect(try check.authenticate(email: "a@example.com", password: "wrong", at: now) == .refused) }
        let locked = accounts.failures(uid: "u")
        #expect(locked.consecutive == 5 && locked.lockedUntil == now.addingTimeInterval(60))
        #expect(try check.authenticate(email: "a@example.com", password: "right password", at: now.addingTimeInterval(59)) == .refused,
                "the right password of a locked disabled account is refused like a wrong one")
        #expect(accounts.failures(uid: "u") == locked)
        #expect(try check.authenticate(email: "a@example.com", password: "right password", at: now.addingTimeInterval(60)) == .disabled)
    }

    @Test func unknownAndPendingAccountsAreRefused() throws {
        #expect(try check().0.authenticate(email: "b@example.com", password: "right password", at: now) == .refused)
        #expect(try check(status: .pending).0.authenticate(email: "a@example.com", password: "right password", at: now) == .refused)
    }
}

/// Hashes are `v<version>:<password>`; version 1 needs rehashing.
struct VersionedVault: CredentialVault {
    func unseal(_ sealedBase64: String) -> String? { sealedBase64 }
    func hash(_ password: String) throws -> String { "v2:" + password }
    func digest(_ bytes: [UInt8]) -> String { "digest:" + String(decoding: bytes, as: UTF8.self) }
    func verify(_ password: String, against hash: String) -> Bool { hash == "v1:" + password || hash == "v2:" + password }
    func needsRehash(_ hash: String) -> Bool { hash.hasPrefix("v1:") }
    func seal(_ plaintext: String, to publicKey: String) -> String? { plaintext }
    func isPublicKey(_ publicKey: String) -> Bool { true }
}

extension PasswordCheckTests {
    /// A password changed between the verification and the rehash stays changed.
    @Test func aRehashDoesNotOverwriteAConcurrentPasswordChange() throws {
        let accounts = store(hash: "v1:right password")
        let vault = RacingVault { _ = try? accounts.replacePasswordHash(uid: "u", from: "v1:right password", to: "v2:changed password") }
        #expect(try PasswordCheck(accounts: accounts, vault: vault).authenticate(email: "a@example.com", password: "right password", at: now).account != nil)
        #expect(try accounts.account(uid: "u")?.passwordHash == "v2:changed password")
    }

    /// The password is verified and rehashed before the first failure update, the first write: in a
    /// unit of work, whose transaction begins at its first write, no hash is computed under its locks.
    @Test func hashingComesBeforeTheFirstWrite() throws {
        let accounts = store(hash: "v1:right password")
        let seen = Mutex<[Int]>([])
        let vault = RacingVault(meanwhile: { seen.withLock { $0.append(accounts.writes.checks) } },
                                verifying: { seen.withLock { $0.append(accounts.writes.checks) } })
        #expect(try PasswordCheck(accounts: accounts, vault: vault).authenticate(email: "a@example.com", password: "right password", at: now).account != nil)
        #expect(seen.withLock { $0 } == [0, 0], "verified, then rehashed, before any write")
        #expect(try accounts.writes.checks > 0 && accounts.account(uid: "u")?.passwordHash == "v2:right password")
    }
}

/// A `VersionedVault` whose rehash of "right password" first runs `meanwhile` (a concurrent change),
/// and whose every verification first runs `verifying`.
struct RacingVault: CredentialVault {
    let base = VersionedVault()
    let meanwhile: @Sendable () -> Void
    var verifying: @Sendable () -> Void = {}

    func hash(_ password: String) throws -> String {
        if password == "right password" { meanwhile() }
        return try base.hash(password)
    }

    func unseal(_ sealedBase64: String) -> String? { base.unseal(sealedBase64) }
    func digest(_ bytes: [UInt8]) -> String { base.digest(bytes) }
    func verify(_ password: String, against hash: String) -> Bool {
        verifying()
        return base.verify(password, against: hash)
    }
    func needsRehash(_ hash: String) -> Bool { base.needsRehash(hash) }
    func seal(_ plaintext: String, to publicKey: String) -> String? { base.seal(plaintext, to: publicKey) }
    func isPublicKey(_ publicKey: String) -> Bool { base.isPublicKey(publicKey) }
}
