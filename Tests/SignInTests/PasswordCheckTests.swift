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

    func check(hash: String = "v2:right password", status: AccountStatus = .active) -> (PasswordCheck, MemoryAccounts) {
        let accounts = MemoryAccounts(Account(uid: "u", email: "a@example.com", passwordHash: hash, status: status,
                                              registrationId: "r", createdAt: now))
        return (PasswordCheck(accounts: accounts, vault: VersionedVault()), accounts)
    }

    @Test func aHashWithOldParametersIsReplacedAtSignIn() throws {
        let (check, accounts) = check(hash: "v1:right password")
        #expect(try check.authenticate(email: " A@Example.com", password: "right password", at: now).account?.uid == "u")
        #expect(accounts.hash == "v2:right password")
    }

    @Test func aLockedAccountRefusesTheRightPasswordAndCountsNothing() throws {
        let (check, accounts) = check()
        for _ in 1...5 { #expect(try check.authenticate(email: "a@example.com", password: "wrong", at: now) == .refused) }
        let locked = accounts.failures
        #expect(locked.consecutive == 5 && locked.lockedUntil == now.addingTimeInterval(60))
        #expect(try check.authenticate(email: "a@example.com", password: "right password", at: now.addingTimeInterval(59)) == .refused)
        #expect(accounts.failures == locked)
        #expect(try check.authenticate(email: "a@example.com", password: "right password", at: now.addingTimeInterval(60)).account != nil)
        #expect(accounts.failures == SignInFailures())
    }

    /// A disabled account is said so only for its right password, and guesses at it count and lock exactly like an
    /// active account's: the answer is no oracle, however many guesses.
    @Test func aDisabledAccountCountsGuessesAndLocksLikeAnActiveOne() throws {
        let (check, accounts) = check(status: .disabled)
        for _ in 1...5 { #expect(try check.authenticate(email: "a@example.com", password: "wrong", at: now) == .refused) }
        let locked = accounts.failures
        #expect(locked.consecutive == 5 && locked.lockedUntil == now.addingTimeInterval(60))
        #expect(try check.authenticate(email: "a@example.com", password: "right password", at: now.addingTimeInterval(59)) == .refused,
                "the right password of a locked disabled account is refused like a wrong one")
        #expect(accounts.failures == locked)
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

/// One account in memory, with its failures; the saga operations are not used by these tests.
final class MemoryAccounts: CredentialStore {
    private let state: Mutex<(account: Account, failures: [FailureKind: SignInFailures], updates: Int)>

    init(_ account: Account) { state = Mutex((account, [:], 0)) }

    var hash: String { state.withLock { $0.account.passwordHash } }
    var failures: SignInFailures { state.withLock { $0.failures[.password] ?? SignInFailures() } }
    /// How many failure updates (each a transaction in a SQL store) ran.
    var updates: Int { state.withLock { $0.updates } }

    func updateFailures<T: Sendable>(uid: String, of kind: FailureKind, _ body: (inout SignInFailures) -> T) throws(StoreError) -> T {
        state.withLock { state in
            state.updates += 1
            return body(&state.failures[kind, default: SignInFailures()])
        }
    }

    func replacePasswordHash(uid: String, from old: String, to new: String) throws(StoreError) -> Bool {
        state.withLock { state in
            guard state.account.passwordHash == old else { return false }
            state.account.passwordHash = new
            return true
        }
    }
    func account(uid: String) throws(StoreError) -> Account? { state.withLock { $0.account.uid == uid ? $0.account : nil } }
    func account(email: String) throws(StoreError) -> Account? { state.withLock { $0.account.email == email ? $0.account : nil } }
    func accounts() throws(StoreError) -> [Account] { [state.withLock { $0.account }] }
    func start(_ saga: SagaRecord, account: Account) throws(StoreError) -> SagaStart { .emailTaken }
    func recordFailed(_ saga: SagaRecord) throws(StoreError) -> SagaRecord { saga }
    func forgetRefusals(recordedBefore date: Date) throws(StoreError) -> Int { 0 }
    func saga(_ registrationId: String) throws(StoreError) -> SagaRecord? { nil }
    func save(_ saga: SagaRecord, applying change: AccountChange?, keeping effects: [OutboxMessage]) throws(StoreError) -> Bool { false }
    func sagas(in stages: Set<SagaStage>, updatedBefore date: Date) throws(StoreError) -> [SagaRecord] { [] }
    func update(uid: String, applying update: AccountUpdate) throws(StoreError) {}
}

extension PasswordCheckTests {
    /// A password changed between the verification and the rehash stays changed.
    @Test func aRehashDoesNotOverwriteAConcurrentPasswordChange() throws {
        let accounts = MemoryAccounts(Account(uid: "u", email: "a@example.com", passwordHash: "v1:right password", status: .active,
                                              registrationId: "r", createdAt: now))
        let vault = RacingVault { _ = try? accounts.replacePasswordHash(uid: "u", from: "v1:right password", to: "v2:changed password") }
        #expect(try PasswordCheck(accounts: accounts, vault: vault).authenticate(email: "a@example.com", password: "right password", at: now).account != nil)
        #expect(accounts.hash == "v2:changed password")
    }

    /// The password is verified and rehashed before the first failure update, the first write: in a
    /// unit of work, whose transaction begins at its first write, no hash is computed under its locks.
    @Test func hashingComesBeforeTheFirstWrite() throws {
        let accounts = MemoryAccounts(Account(uid: "u", email: "a@example.com", passwordHash: "v1:right password", status: .active,
                                              registrationId: "r", createdAt: now))
        let seen = Mutex<[Int]>([])
        let vault = RacingVault(meanwhile: { seen.withLock { $0.append(accounts.updates) } },
                                verifying: { seen.withLock { $0.append(accounts.updates) } })
        #expect(try PasswordCheck(accounts: accounts, vault: vault).authenticate(email: "a@example.com", password: "right password", at: now).account != nil)
        #expect(seen.withLock { $0 } == [0, 0], "verified, then rehashed, before any write")
        #expect(accounts.updates > 0 && accounts.hash == "v2:right password")
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
