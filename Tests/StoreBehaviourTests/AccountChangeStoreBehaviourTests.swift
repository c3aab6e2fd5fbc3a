import AccountChanges
import Backends
import Domain
import Foundation
import Registration
import SignIn
import SQLStores
import Synchronization
@testable import TestSupport
import Testing

/// What every `AccountChangeStore` must do (sign-in failures and account changes), checked against
/// each implementation, the unit tests' fake (`InMemoryAccountStore`) included.
@Suite(.tags(.production)) struct AccountChangeStoreBehaviourTests {
    @Test(arguments: StoreBackend.allCases)
    func failuresAreSavedAsTheBodyLeavesThem(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let locked = SignInFailures(consecutive: 5, lockedUntil: startDate)
            #expect(try store.updateFailures(uid: "uid-1") { failures in
                defer { failures = locked }
                return failures
            } == SignInFailures())
            #expect(try store.updateFailures(uid: "uid-1") { $0 } == locked)
            #expect(try store.updateFailures(uid: "uid-2") { $0 } == SignInFailures())
        }
    }

    /// Several stores on one location stand for several worker processes.
    @Test(arguments: StoreBackend.allCases)
    func concurrentFailuresAreAllCounted(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let stores = try (0..<2).map { _ in try backend.accountChangeStore(at: url) }
            onThreads(12) { index in _ = try? stores[index % 2].updateFailures(uid: "uid-1") { $0.consecutive += 1 } }
            #expect(try stores[0].updateFailures(uid: "uid-1") { $0.consecutive } == 12)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func passwordAndCodeFailuresAreCountedApart(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let locked = SignInFailures(consecutive: 100, lockedUntil: .distantFuture)
            try store.updateFailures(uid: "uid-1", of: .code) { $0 = locked }
            #expect(try store.updateFailures(uid: "uid-1", of: .password) { $0 } == SignInFailures())
            #expect(try store.updateFailures(uid: "uid-1", of: .code) { $0 } == locked)
        }
    }

    /// A rehash verified against one hash must not overwrite a password changed meanwhile.
    @Test(arguments: StoreBackend.allCases)
    func replacePasswordHashIsACompareAndSwap(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let uid = try store.register(email: "ada@example.com")
            let verified = try #require(try store.account(uid: uid)?.passwordHash)
            #expect(try store.replacePasswordHash(uid: uid, from: verified, to: "changed-hash"))
            #expect(try !store.replacePasswordHash(uid: uid, from: verified, to: "rehash-of-the-old-password"))
            #expect(try store.account(uid: uid)?.passwordHash == "changed-hash")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func beginRecordsTheChangeWithItsUpdate(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let (uid, change) = try store.beginChangingEmail()
            #expect(try store.change(requestId: "c1") == change)
            #expect(try store.account(email: "lovelace@example.com")?.uid == uid)
            #expect(try store.change(requestId: "c2") == nil)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func beginOfAKnownRequestWritesNothing(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let (uid, change) = try store.beginChangingEmail()
            let again = emailChange("c1", uid: uid, to: "other@example.com")
            #expect(try store.begin(again, applying: AccountUpdate(email: "other@example.com")) == .existing(change))
            #expect(try store.account(uid: uid)?.email == "lovelace@example.com")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func beginWithATakenEmailWritesNothing(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let uid = try store.register(email: "ada@example.com")
            _ = try store.register(email: "lovelace@example.com")
            let change = emailChange("c1", uid: uid, to: "lovelace@example.com")
            #expect(try store.begin(change, applying: AccountUpdate(email: "lovelace@example.com")) == .emailTaken)
            #expect(try store.change(requestId: "c1") == nil)
            #expect(try store.account(uid: uid)?.email == "ada@example.com")
        }
    }

    /// The unique email decides between changes of different accounts to one email.
    @Test(arguments: StoreBackend.allCases)
    func concurrentChangesToOneEmailStartOne(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let stores = try (0..<2).map { _ in try backend.accountChangeStore(at: url) }
            let uids = try (0..<8).map { try stores[0].register(email: "user\($0)@example.com") }
            let results = Mutex<[AccountChangeStart]>([])
            onThreads(8) { index in
                let change = emailChange("c\(index)", uid: uids[index], to: "wanted@example.com")
                let result = try? stores[index % 2].begin(change, applying: AccountUpdate(email: "wanted@example.com"))
                results.withLock { $0.append(contentsOf: result.map { [$0] } ?? []) }
            }
            let outcomes = results.withLock { $0 }
            #expect(outcomes.count == 8)
            #expect(outcomes.filter { if case .started = $0 { true } else { false } }.count == 1)
            #expect(try stores[0].accounts().filter { $0.email == "wanted@example.com" }.count == 1)
        }
    }

    /// A change authenticated by the password an operator then reset, or of an account an operator then disabled, must
    /// not commit over the operator's change.
    @Test(arguments: StoreBackend.allCases)
    func beginAfterTheAuthenticatedCredentialsChangedWritesNothing(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let uid = try store.register(email: "ada@example.com")
            let authenticated = try #require(try store.account(uid: uid)?.passwordHash)
            let update = AccountUpdate(passwordHash: "new-hash", email: "lovelace@example.com", authenticatedAgainst: authenticated)
            #expect(try store.replacePasswordHash(uid: uid, from: authenticated, to: "operator-hash"))
            #expect(try store.begin(emailChange("c1", uid: uid, to: "lovelace@example.com"), applying: update) == .credentialsChanged)
            #expect(try store.replacePasswordHash(uid: uid, from: "operator-hash", to: authenticated))
            try store.disableAsAnOperator(uid)
            #expect(try store.begin(emailChange("c2", uid: uid, to: "lovelace@example.com"), applying: update) == .credentialsChanged)
            #expect(try store.change(requestId: "c1") == nil && store.change(requestId: "c2") == nil)
            let account = try #require(try store.account(uid: uid))
            #expect(account.email == "ada@example.com" && account.passwordHash == authenticated && account.status == .disabled)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func saveReplacesTheRecordWithItsUpdate(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let (uid, change) = try store.beginChangingEmail()
            var undone = change
            undone.stage = .failed
            undone.failure = Failure(.deadlineExceeded, "The profile did not follow.")
            #expect(try store.save(undone, applying: AccountUpdate(email: "ada@example.com")) == undone)
            #expect(try store.change(requestId: "c1") == undone)
            #expect(try store.account(uid: uid)?.email == "ada@example.com")
            let error = #expect(throws: StoreError.self) {
                try store.save(emailChange("c2", uid: "no-such-uid", to: "x@example.com"), applying: AccountUpdate(passwordHash: "h"))
            }
            #expect(error?.kind == .permanent)
            #expect(try store.change(requestId: "c2") == nil)
        }
    }

    /// A credential change ends the account's sessions (a not-before time that only moves forward, a tick at least) and a code
    /// proves its mailbox once; each stage of an email change that sends a command takes the next revision.
    @Test(arguments: StoreBackend.allCases)
    func updatesEndSessionsProveTheMailboxAndTakeRevisions(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let (uid, change) = try store.beginChangingEmail()
            let proven = startDate.addingTimeInterval(60)
            _ = try store.save(change, applying: AccountUpdate(endsSessionsAt: proven, provesMailboxAt: proven))
            _ = try store.save(change, applying: AccountUpdate(endsSessionsAt: startDate, provesMailboxAt: startDate.addingTimeInterval(120)))
            let account = try #require(try store.account(uid: uid))
            // A later change never moves the cut-off back: at least a tick after the last one. The first proof stays.
            #expect(account.notBefore.map(Account.milliseconds) == Account.milliseconds(proven) + 1)
            #expect(account.verifiedAt == proven)
            var compensating = change
            compensating.stage = .compensating
            let saved = try store.save(compensating, applying: nil)
            #expect(saved.revision == change.revision + 1)
            #expect(try store.account(uid: uid)?.revision == saved.revision)
            #expect(try store.save(saved, applying: nil).revision == saved.revision)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func changesAreFoundByStageAndLastUpdate(backend: StoreBackend) throws {
        try backend.withAccountChangeStore { (store) throws in
            let stages: [AccountChangeStage] = [.awaitingProfile, .completed, .awaitingProfile, .awaitingProfile]
            for (index, stage) in stages.enumerated() {
                var change = emailChange("c\(index)", uid: try store.register(email: "owner\(index)@example.com"), to: "user\(index)@example.com")
                change.stage = stage
                change.updatedAt = startDate.addingTimeInterval(Double(index) * 60)
                try store.save(change, applying: nil)
            }
            let stuck = try store.changes(in: .awaitingProfile, updatedBefore: startDate.addingTimeInterval(150))
            #expect(stuck.map(\.requestId) == ["c0", "c2"])
        }
    }
}

/// A change of `uid`'s email from ada@example.com to `email`, awaiting the profile.
private func emailChange(_ requestId: String, uid: String, to email: String) -> AccountChangeRecord {
    AccountChangeRecord(requestId: requestId, uid: uid, kind: .changeEmail, oldEmail: "ada@example.com", newEmail: email,
                        stage: .awaitingProfile, updatedAt: startDate)
}

private extension AccountChangeStore {
    /// Disables `uid` as an operator does: through the operator's port of a SQL store; the fake, which has none, as
    /// the unit tests' operator does.
    func disableAsAnOperator(_ uid: String) throws {
        if let store = self as? any OperatorStore {
            let disabled = AccountEvent(.accountDisabled, uid: uid, at: startDate)
            #expect(try store.apply(.disable(endingSessionsAt: startDate), to: uid, announcing: disabled))
        } else {
            let fake = try #require(self as? InMemoryAccountStore)
            fake.setStatus(.disabled, of: uid)
        }
    }

    /// Registers an account with `email`, started and completed; its uid.
    func register(email: String) throws -> String {
        try registered("r-\(email)", email: email).uid
    }

    /// Registers ada@example.com and begins changing it to lovelace@example.com (request `c1`).
    func beginChangingEmail() throws -> (uid: String, change: AccountChangeRecord) {
        let uid = try register(email: "ada@example.com")
        var change = emailChange("c1", uid: uid, to: "lovelace@example.com")
        // The change's command takes the account's next revision, after its registration's last step.
        change.revision = try #require(try account(uid: uid)).revision + 1
        #expect(try begin(change, applying: AccountUpdate(email: "lovelace@example.com")) == .started(change))
        return (uid, change)
    }
}
