import Backends
import Domain
import Foundation
import Registration
import SQLStores
import Synchronization
@testable import TestSupport
import Testing

/// What every `AccountStore` must do, checked against each implementation, the unit tests' fake (`InMemoryAccountStore`)
/// included.
@Suite(.tags(.production)) struct AccountStoreBehaviourTests {
    @Test(arguments: StoreBackend.allCases)
    func startInsertsThePendingAccountAndTheSaga(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let saga = sagaRecord("r1")
            #expect(try store.start(saga, account: pendingAccount(for: saga)) == .started)
            #expect(try store.saga("r1") == saga)
            #expect(try store.account(uid: saga.uid) == pendingAccount(for: saga))
            #expect(try store.account(email: "ada@example.com") == pendingAccount(for: saga))
            #expect(try store.accounts() == [pendingAccount(for: saga)])
            #expect(try store.saga("r2") == nil)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func startOfAKnownRegistrationReturnsTheStoredSaga(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let saga = sagaRecord("r1")
            _ = try store.start(saga, account: pendingAccount(for: saga))
            var again = saga
            again.uid = "another-uid"
            #expect(try store.start(again, account: pendingAccount(for: again)) == .existing(saga))
            #expect(try store.accounts().count == 1)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func startWithATakenEmailInsertsNothing(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let first = sagaRecord("r1", email: "ada@example.com")
            let second = sagaRecord("r2", email: RegistrationRules.normalizedEmail("  ADA@Example.com "))
            _ = try store.start(first, account: pendingAccount(for: first))
            #expect(try store.start(second, account: pendingAccount(for: second)) == .emailTaken)
            #expect(try store.saga("r2") == nil)
            #expect(try store.accounts() == [pendingAccount(for: first)])
        }
    }

    /// A uid is one account's: a registration whose uid is taken starts nothing, as one whose email is.
    @Test(arguments: StoreBackend.allCases)
    func startWithATakenUidInsertsNothing(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let first = sagaRecord("r1")
            _ = try store.start(first, account: pendingAccount(for: first))
            var second = sagaRecord("r2", email: "other@example.com")
            second.uid = first.uid
            #expect(try store.start(second, account: pendingAccount(for: second)) == .emailTaken)
            #expect(try store.saga("r2") == nil)
            #expect(try store.accounts() == [pendingAccount(for: first)])
        }
    }

    /// Several stores on one location stand for several worker processes.
    @Test(arguments: StoreBackend.allCases)
    func concurrentStartsOfOneEmailStartExactlyOne(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let stores = try (0..<2).map { _ in try backend.accountStore(at: url) }
            let results = Mutex<[Result<SagaStart, StoreError>]>([])
            onThreads(16) { index in
                let saga = sagaRecord("r\(index)")
                let result = Result { () throws(StoreError) in try stores[index % 2].start(saga, account: pendingAccount(for: saga)) }
                results.withLock { $0.append(result) }
            }
            let outcomes = try results.withLock { try $0.map { try $0.get() } }
            #expect(outcomes.filter { $0 == .started }.count == 1)
            #expect(outcomes.filter { $0 == .emailTaken }.count == 15)
            let accounts = try stores[0].accounts()
            #expect(accounts.count == 1)
            #expect(try stores[1].saga(accounts[0].registrationId) != nil)
        }
    }

    /// A redelivered request handled by two workers at once starts the registration once.
    @Test(arguments: StoreBackend.allCases)
    func concurrentStartsOfOneRegistrationStartItOnce(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let stores = try (0..<2).map { _ in try backend.accountStore(at: url) }
            let results = Mutex<[SagaStart]>([])
            let saga = sagaRecord("r1")
            onThreads(8) { index in
                var attempt = saga
                attempt.email = "user\(index)@example.com"
                let result = try? stores[index % 2].start(attempt, account: pendingAccount(for: attempt))
                results.withLock { $0.append(contentsOf: result.map { [$0] } ?? []) }
            }
            let outcomes = results.withLock { $0 }
            #expect(outcomes.count == 8)
            #expect(outcomes.filter { $0 == .started }.count == 1)
            #expect(try stores[0].accounts().count == 1)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func saveIsACompareAndSetOnTheVersion(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let saga = sagaRecord("r1")
            _ = try store.start(saga, account: pendingAccount(for: saga))
            let moved = saga.next(.awaitingProfile, imageURL: "file:///objects/ProfileImages/image-r1.jpg")
            #expect(try store.save(moved, applying: nil))
            #expect(try store.saga("r1") == moved)

            // A writer that read version 1 too loses, with its account change.
            let stale = saga.next(.failed, failure: Failure(.imageCorrupt, "bad"))
            #expect(try store.save(stale, applying: .delete(uid: saga.uid)) == false)
            #expect(try store.saga("r1") == moved)
            #expect(try store.account(uid: saga.uid)?.status == .pending)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func concurrentSavesOfOneVersionLetOneWin(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let stores = try (0..<2).map { _ in try backend.accountStore(at: url) }
            let saga = sagaRecord("r1")
            _ = try stores[0].start(saga, account: pendingAccount(for: saga))
            let wins = Mutex(0)
            onThreads(8) { index in
                let next = saga.next(.awaitingProfile, imageURL: "https://images.example.com/\(index).jpg")
                if (try? stores[index % 2].save(next, applying: nil)) == true { wins.withLock { $0 += 1 } }
            }
            #expect(wins.withLock { $0 } == 1)
            #expect(try stores[0].saga("r1")?.version == 2)
        }
    }

    /// The side effects a save keeps (`SagaEngine.Effect`: the welcome mail) are written in its transaction, to the
    /// side-effect outbox: kept exactly when the save commits. A save whose change fails keeps nothing; of writers
    /// racing with one version, only the winner's are kept; a stale writer's after it, none.
    @Test(arguments: StoreBackend.databases)
    func theSideEffectsOfASaveAreKeptExactlyWhenItCommits(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let stores = try (0..<2).map { _ in try BackendOptions.accountStore(at: url) }
            let effects = try BackendOptions(accounts: url, dataDirectory: "/nonexistent").effectOutbox()
            let saga = sagaRecord("r1")
            _ = try stores[0].start(saga, account: pendingAccount(for: saga))
            let welcome = OutboxMessage(topic: "mail", key: "welcome.r1@registrar.local", type: "welcome",
                                        payload: Array(#"{"to":"ada@example.com","subject":"Welcome, Ada ✓"}"#.utf8))
            #expect(throws: StoreError.self) {
                try stores[0].save(saga.next(.completed), applying: .activate(uid: "no-such-uid"), keeping: [welcome])
            }
            #expect(try effects.pending(limit: 10).isEmpty, "a save that failed kept its effects")

            let wins = Mutex(0)
            onThreads(8) { index in
                if (try? stores[index % 2].save(saga.next(.completed), applying: .activate(uid: saga.uid), keeping: [welcome])) == true {
                    wins.withLock { $0 += 1 }
                }
            }
            #expect(wins.withLock { $0 } == 1)
            let kept = try effects.pending(limit: 10)
            #expect(kept.count == 1, "one committed save, one set of effects: \(kept.map(\.key))")
            #expect(kept.first.map { [$0.topic, $0.key, $0.type] } == ["mail", welcome.key, "welcome"] && kept.first?.payload == welcome.payload)

            #expect(try stores[1].save(saga.next(.failed), applying: nil, keeping: [welcome]) == false)
            #expect(try effects.pending(limit: 10).count == 1, "a stale writer kept its effects")
            try effects.remove(kept)
            #expect(try effects.pending(limit: 10).isEmpty)
        }
    }

    /// A claim on a kept effect holds off every other relay until it runs out; its own relay renews it; a removed
    /// effect cannot be claimed.
    @Test(arguments: StoreBackend.databases)
    func aClaimOnAnEffectHoldsOffTheOtherRelaysUntilItRunsOut(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let outboxes = try (0..<2).map { _ in try BackendOptions(accounts: url, dataDirectory: "/nonexistent").effectOutbox() }
            try keepWelcomes(for: ["r1"], at: url)
            let effect = try #require(try outboxes[0].pending(limit: 10).first)
            let now = Date()
            #expect(try outboxes[0].claim(effect, for: "a", until: now + 300, now: now))
            #expect(try outboxes[1].claim(effect, for: "b", until: now + 400, now: now + 299) == false)
            #expect(try outboxes[0].claim(effect, for: "a", until: now + 600, now: now + 299), "its own relay renews it")
            #expect(try outboxes[1].claim(effect, for: "b", until: now + 700, now: now + 599) == false)
            #expect(try outboxes[1].claim(effect, for: "b", until: now + 900, now: now + 601), "a claim that ran out")
            try outboxes[1].remove([effect])
            #expect(try outboxes[0].claim(effect, for: "a", until: now + 1_000, now: now + 1_000) == false)
        }
    }

    /// A relay reads as claimable its own claims, those that ran out and the unclaimed effects, oldest first, never one
    /// another relay holds: what others hold hides nothing behind it.
    @Test(arguments: StoreBackend.databases)
    func aRelayReadsNoEffectAnotherHolds(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let outbox = try BackendOptions(accounts: url, dataDirectory: "/nonexistent").effectOutbox()
            try keepWelcomes(for: ["r1", "r2", "r3"], at: url)
            let effects = try outbox.pending(limit: 10)
            let now = Date()
            #expect(try outbox.claim(effects[0], for: "a", until: now + 300, now: now))
            #expect(try outbox.claim(effects[1], for: "b", until: now + 300, now: now))
            #expect(try outbox.claimable(for: "b", now: now, limit: 2) == [effects[1], effects[2]])
            #expect(try outbox.claimable(for: "a", now: now, limit: 10) == [effects[0], effects[2]])
            #expect(try outbox.claimable(for: "c", now: now + 301, limit: 10) == effects, "claims that ran out")
        }
    }

    /// Two relays (two replicas of the account worker) performing one database's kept effects at the same time perform
    /// each exactly once: each claims an effect before performing it.
    @Test(arguments: StoreBackend.databases)
    func twoRelaysAtOncePerformEachKeptEffectOnce(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let ids = (0..<24).map { "r\($0)" }
            try keepWelcomes(for: ids, at: url)
            let sent = Mutex<[String]>([])
            let relays = try (0..<2).map { _ in
                SideEffects(outbox: try BackendOptions(accounts: url, dataDirectory: "/nonexistent").effectOutbox(),
                            performers: ["mail": { effect in
                                Thread.sleep(forTimeInterval: 0.002)
                                sent.withLock { $0.append(effect.key) }
                            }])
            }
            onThreads(2) { index in
                while (try? relays[index].performPending()) ?? 0 > 0 {}
            }
            #expect(sent.withLock { $0 }.sorted() == ids.map { "welcome.\($0)@registrar.local" }.sorted())
            #expect(try relays[0].outbox.pending(limit: 100).isEmpty)
        }
    }

    /// Completes a registration saga for each of `ids` on the account database at `url`, each keeping a welcome mail.
    private func keepWelcomes(for ids: [String], at url: String) throws {
        let store = try BackendOptions.accountStore(at: url)
        for id in ids {
            let saga = sagaRecord(id, email: "\(id)@example.com")
            _ = try store.start(saga, account: pendingAccount(for: saga))
            let welcome = OutboxMessage(topic: "mail", key: "welcome.\(id)@registrar.local", type: "welcome", payload: Array("{}".utf8))
            #expect(try store.save(saga.next(.completed), applying: .activate(uid: saga.uid), keeping: [welcome]) == true)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func saveActivatesTheAccountWithTheSaga(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let saga = sagaRecord("r1")
            _ = try store.start(saga, account: pendingAccount(for: saga))
            #expect(try store.save(saga.next(.completed), applying: .activate(uid: saga.uid)))
            #expect(try store.account(uid: saga.uid)?.status == .active)
            #expect(try store.saga("r1")?.stage == .completed)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func saveThatCannotApplyItsChangeSavesNothing(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let saga = sagaRecord("r1")
            _ = try store.start(saga, account: pendingAccount(for: saga))
            let error = #expect(throws: StoreError.self) {
                try store.save(saga.next(.completed), applying: .activate(uid: "no-such-uid"))
            }
            #expect(error?.kind == .permanent)
            #expect(try store.saga("r1") == saga)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func saveDeletesTheAccountWithTheSagaAndFreesTheEmail(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let saga = sagaRecord("r1")
            _ = try store.start(saga, account: pendingAccount(for: saga))
            let failed = saga.next(.failed, failure: Failure(.imageAnimated, "Animated images are not accepted."))
            #expect(try store.save(failed, applying: .delete(uid: saga.uid)))
            #expect(try store.account(uid: saga.uid) == nil)
            #expect(try store.saga("r1") == failed)

            let retry = sagaRecord("r2")
            #expect(try store.start(retry, account: pendingAccount(for: retry)) == .started)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func recordFailedKeepsTheFirstRecord(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            var failed = sagaRecord("r1", stage: .failed)
            failed.failure = Failure(.emailTaken, "This email address is already in use.")
            #expect(try store.recordFailed(failed) == failed)
            var other = failed
            other.failure = Failure(.deadlineExceeded, "later")
            #expect(try store.recordFailed(other) == failed)
            #expect(try store.accounts().isEmpty)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func onlyRefusalsOlderThanTheCutOffAreForgotten(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            var old = sagaRecord("old", stage: .failed), recent = sagaRecord("recent", stage: .failed)
            (old.uid, recent.uid) = ("", "")
            recent.updatedAt = startDate.addingTimeInterval(120)
            let undone = sagaRecord("undone", stage: .failed), completed = sagaRecord("completed", stage: .completed)
            for saga in [old, recent, undone, completed] { _ = try store.recordFailed(saga) }
            #expect(try store.forgetRefusals(recordedBefore: startDate.addingTimeInterval(60)) == 1)
            #expect(try store.saga("old") == nil)
            #expect(try store.saga("recent") == recent && store.saga("undone") == undone && store.saga("completed") == completed,
                    "a newer refusal, and every saga that created an account, are kept")
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func sagasAreFoundByStageAndLastUpdate(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let stages: [SagaStage] = [.awaitingAvatar, .awaitingProfile, .completed, .awaitingAvatar]
            for (index, stage) in stages.enumerated() {
                var saga = sagaRecord("r\(index)", email: "user\(index)@example.com", stage: stage)
                saga.updatedAt = startDate.addingTimeInterval(Double(index) * 60)
                _ = try store.recordFailed(saga)
            }
            let stuck = try store.sagas(in: [.awaitingAvatar, .awaitingProfile], updatedBefore: startDate.addingTimeInterval(150))
            #expect(stuck.map(\.registrationId) == ["r0", "r1"])
            #expect(try store.sagas(in: [.awaitingAvatar], updatedBefore: .distantFuture).map(\.registrationId) == ["r0", "r3"])
            #expect(try store.sagas(in: [], updatedBefore: .distantFuture).isEmpty)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func datesRoundTripBelowAMicrosecond(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            var saga = sagaRecord("r1")
            let now = Date()
            saga.startedAt = now
            saga.updatedAt = now
            _ = try store.recordFailed(saga)
            let stored = try #require(try store.saga("r1"))
            #expect(abs(stored.startedAt.timeIntervalSince(now)) < 0.000_001)
        }
    }

    @Test(arguments: StoreBackend.allCases)
    func awkwardTextIsBoundNotSpliced(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            var saga = sagaRecord("r'); DROP TABLE sagas; --", email: "o'brien+\"x\"@example.com")
            saga.name = "Zoë \\ 😀 $1 ?"
            _ = try store.start(saga, account: pendingAccount(for: saga))
            #expect(try store.saga(saga.registrationId) == saga)
            #expect(try store.account(email: saga.email)?.uid == saga.uid)
        }
    }
}
