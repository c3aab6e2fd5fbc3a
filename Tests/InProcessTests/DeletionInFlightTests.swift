import AccountChanges
import Domain
import Foundation
import Kafka
import Registration
import RegistrarClient
import SignIn
import Support
@testable import TestSupport
import Testing

/// Issue 26's hidden cases: a deletion asked for while another saga of the same account is in flight — an email change
/// waiting at its profile step (the profile worker stopped, or the profile store locked), or a registration at its avatar
/// or profile step (an operator's delete). The deletion does not begin under the other saga: it is refused at once,
/// which is its one outcome, and the saga in flight ends with its own one outcome (completed, or undone at its
/// deadline) and writes nothing back; the deletion asked again then completes and leaves nothing of the account in any
/// store, both addresses free.
@Suite(.tags(.inProcess)) struct DeletionInFlightTests {
    static let password = "in flight quartz lantern 42"

    /// The profile worker stops while an email change waits for it; a deletion (the owner's, signed in at the new address)
    /// and an operator's are refused; the change's deadline undoes it (the profile set back, then the account), its one
    /// outcome `deadline_exceeded`; the deletion asked again erases everything.
    @Test func aDeletionWaitsForAnEmailChangeUndoneAtItsDeadline() async throws {
        try await InProcessSystem.with { system in
            let (old, new) = ("moving-leaver@example.com", "moved-leaver@example.com")
            let (uid, imageId, change) = try await Self.emailChangeWaiting(from: old, to: new, on: system) { try await system.hold("profile-worker") }
            let stores = try system.backends.options.accountChangeStore()

            let tokens = try #require(try await system.signIn(.password, email: new, secret: Self.password).1)
            let early = system.client.deletion(accessToken: tokens.accessToken, proof: .password(Self.password))
            #expect(reason(try await system.send(.accountDeletionRequested(early))) == .profileUpdateInProgress)
            #expect(try await system.operateRefusal(.delete, new) == .profileUpdateInProgress)
            #expect(try stores.account(uid: uid)?.status == .active)

            try await system.hold("account-worker")
            try system.startWorker("account-worker", extraArguments: ["--saga-deadline", "5"])
            try await DeletionTests.wait { try stores.change(requestId: change.requestId)?.stage == .compensating }
            try await system.resume("profile-worker")
            try await DeletionTests.wait { try stores.change(requestId: change.requestId)?.stage == .failed }
            #expect(try system.backends.profiles().profile(uid: uid)?.email == old, "the profile is set back")
            #expect(try stores.account(uid: uid)?.email == old)
            try await Self.expectOneOutcome(of: change.requestId, on: system) { reason($0) == .deadlineExceeded }
            try await Self.expectOneOutcome(of: early.requestId, on: system) { reason($0) == .profileUpdateInProgress }

            try await Self.deleteAndExpectNothingLeft(uid: uid, imageId: imageId, email: old, on: system)
            for address in [old, new] { #expect(try await system.register(address, password: Self.password) != uid, "\(address) is free") }
        }
    }

    /// The profile store is locked while an email change waits for it (the profile worker retrying, its heartbeats keeping
    /// the change from its deadline): the owner's deletion is refused; once the store is back the change completes, its
    /// one outcome; the deletion asked again erases everything, and neither address is held.
    @Test func aDeletionWaitsForAnEmailChangeHeldByALockedProfileStore() async throws {
        try await InProcessSystem.with(extraArguments: ["profile-worker": ["--heartbeat-interval", "1"]]) { system in
            let (old, new) = ("locked-leaver@example.com", "unlocked-leaver@example.com")
            var lock: ChildProcess?
            let (uid, imageId, change) = try await Self.emailChangeWaiting(from: old, to: new, on: system) {
                lock = try await system.backends.lockProfiles(logs: system.logs)
            }
            let stores = try system.backends.options.accountChangeStore()
            let tokens = try #require(try await system.signIn(.password, email: new, secret: Self.password).1)
            let early = system.client.deletion(accessToken: tokens.accessToken, proof: .password(Self.password))
            let refused = try await system.send(.accountDeletionRequested(early))
            await system.backends.releaseProfiles(try #require(lock))
            #expect(reason(refused) == .profileUpdateInProgress, "\(refused)")

            try await DeletionTests.wait { try stores.change(requestId: change.requestId)?.stage == .completed }
            #expect(try system.backends.profiles().profile(uid: uid)?.email == new)
            try await Self.expectOneOutcome(of: change.requestId, on: system) { $0.kind == .accountChangeCompleted }
            try await Self.expectOneOutcome(of: early.requestId, on: system) { reason($0) == .profileUpdateInProgress }

            try await Self.deleteAndExpectNothingLeft(uid: uid, imageId: imageId, email: new, on: system)
            for address in [old, new] { #expect(try await system.register(address, password: Self.password) != uid, "\(address) is free") }
        }
    }

    /// An operator deletes an account whose registration waits at its avatar step (the image worker stopped), and another
    /// whose registration waits at its profile step (the profile worker stopped): refused `account_inactive`, nothing
    /// written; each registration completes with its one outcome; the operator's delete asked again erases everything.
    @Test func anOperatorsDeleteWaitsForARegistrationAtItsAvatarOrProfileStep() async throws {
        try await InProcessSystem.with { system in
            for (worker, stage, email) in [("image-worker", SagaStage.awaitingAvatar, "registering-at-avatar@example.com"),
                                           ("profile-worker", SagaStage.awaitingProfile, "registering-at-profile@example.com")] {
                let request = try await system.request(email: email, password: Self.password)
                try await system.hold(worker)
                try await system.publish(.registrationRequested(request))
                let accounts = try system.backends.accounts()
                try await DeletionTests.wait { try accounts.saga(request.registrationId)?.stage == stage }
                let pending = try #require(try accounts.account(email: email))
                #expect(pending.status == .pending)
                #expect(try await system.operateRefusal(.delete, email) == .accountInactive, "\(stage)")
                #expect(try accounts.account(uid: pending.uid)?.status == .pending)

                try await system.resume(worker)
                let outcomes = try await system.waitForOutcomes([request.registrationId])
                guard case .completed(let completed) = try system.sealing.registrationOutcome(try #require(outcomes[request.registrationId]?.first)) else {
                    Issue.record("the registration at \(stage) did not complete")
                    continue
                }
                #expect(completed.uid == pending.uid)
                let imageId = try DeletionTests.imageId(of: pending.uid, on: system)
                let order = system.client.operatorRequest(.delete, email: email, actor: "ada")
                let (answered, _, deleted) = try await system.client.operateDeletion(order, signer: try system.operatorSigner(), timeout: .seconds(90))
                guard case .operatorAnswered = answered, deleted == true else { Issue.record("not deleted: \(answered)"); continue }
                try Self.expectNothingLeft(uid: pending.uid, imageId: imageId, email: email, on: system)
                #expect(try await system.register(email, password: Self.password) != pending.uid, "the address is free")
            }
        }
    }

    /// An account registered at `old`, its uid and avatar, and its email change to `new`, published once `stall` stopped
    /// the profile step, waiting at that step.
    static func emailChangeWaiting(from old: String, to new: String, on system: InProcessSystem, stalling stall: () async throws -> Void)
        async throws -> (uid: String, imageId: String, change: EmailChangeRequested) {
        let uid = try await system.register(old, password: password)
        let imageId = try DeletionTests.imageId(of: uid, on: system)
        let change = system.client.emailChange(email: old, password: password, newEmail: new, code: try await system.code(for: new, .changeEmail))
        try await stall()
        try await system.publish(.emailChangeRequested(change))
        let stores = try system.backends.options.accountChangeStore()
        try await DeletionTests.wait { try stores.change(requestId: change.requestId)?.stage == .awaitingProfile }
        return (uid, imageId, change)
    }

    /// Deletes the account of `email` (signed in now, with its password) and expects nothing of it left.
    static func deleteAndExpectNothingLeft(uid: String, imageId: String, email: String, on system: InProcessSystem) async throws {
        let tokens = try #require(try await system.signIn(.password, email: email, secret: password).1)
        let deletion = system.client.deletion(accessToken: tokens.accessToken, proof: .password(password))
        #expect(try await system.send(.accountDeletionRequested(deletion)) == .accountDeleted(AccountDeleted(requestId: deletion.requestId)))
        try await DeletionTests.expectOneOutcome(of: deletion.requestId, on: system)
        try expectNothingLeft(uid: uid, imageId: imageId, email: email, on: system)
        #expect(reason(try await system.client.profile(accessToken: tokens.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)
    }

    /// Nothing of the account `uid` in any store: account, profile, avatar, changes, codes; the audit finds nothing.
    static func expectNothingLeft(uid: String, imageId: String, email: String, on system: InProcessSystem) throws {
        let stores = try system.backends.options.accountChangeStore()
        #expect(try stores.account(uid: uid) == nil && stores.account(email: email) == nil)
        #expect(try system.backends.profiles().profile(uid: uid) == nil)
        #expect(try system.backends.profiles().profiles().allSatisfy { $0.uid != uid }, "no profile written back")
        #expect(try !system.backends.objects().contains(AvatarStep.key(imageId: imageId)))
        #expect(try stores.changes(uid: uid).isEmpty && stores.profileUpdates(uid: uid).isEmpty)
        for purpose in CodePurpose.allCases {
            #expect(try system.backends.options.codeStore().update(email: email, purpose: purpose) { (record) throws(StoreError) in record } == nil)
        }
        #expect(try system.audit().isEmpty)
    }

    /// Every answer given to `requestId` on `account.outcomes` satisfies `expected`, and there is one.
    static func expectOneOutcome(of requestId: String, on system: InProcessSystem, _ expected: (Event) -> Bool) async throws {
        try await Task.sleep(for: .seconds(1))
        let given = try await system.allTopicMessages().filter { $0.topic == Topic.accountOutcomes && $0.keyString == requestId }
            .compactMap { try? $0.event() }
        #expect(!given.isEmpty && given.allSatisfy(expected), "one outcome: \(given)")
    }
}
