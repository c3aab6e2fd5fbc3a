import AccountChanges
import Backends
import Domain
import Foundation
import Registration
import SignIn
import SQLStores
@testable import TestSupport
import Testing

/// What every `DeletionStore` must do, checked against each implementation: a deletion begins only for an active
/// account and ends its sessions; each command it sends is newer than any other of the account; once completed, the
/// account and the rows naming it are gone and the address is free.
@Suite(.tags(.production)) struct DeletionStoreBehaviourTests {
    @Test(arguments: StoreBackend.databases)
    func aDeletionRunsForwardAndLeavesNothingNamingTheAccount(backend: StoreBackend) throws {
        try backend.withStore(BackendOptions.accountChangeStore(at:)) { (store) throws in
            let saga = try store.registered("r-leaver", email: "leaver@example.com")
            try store.updateFailures(uid: saga.uid) { $0.consecutive = 2 }
            let record = DeletionRecord(requestId: "d-1", uid: saga.uid, email: saga.email, imageId: saga.imageId, stage: .erasingAvatar,
                                        updatedAt: startDate)
            guard case .started(let started) = try store.begin(record, endingSessionsAt: startDate, announcing: nil) else {
                Issue.record("not begun")
                return
            }
            let account = try #require(try store.account(uid: saga.uid))
            #expect(account.status == .deleting && account.notBefore == startDate && started.revision == account.revision)
            #expect(try store.begin(record, endingSessionsAt: startDate, announcing: nil) == .existing(started))
            var again = record
            again.requestId = "d-2"
            #expect(try store.begin(again, endingSessionsAt: startDate, announcing: nil) == .notActive, "a deleting account begins no second deletion")

            // A resent step (the sweep's) is newer than any command another saga of the account took meanwhile.
            let taken = try #require(try store.account(uid: saga.uid)).revision
            let resent = try store.save(started)
            #expect(resent.revision > taken)
            #expect(try store.deletions(in: DeletionStage.waiting, updatedBefore: startDate.addingTimeInterval(1)).map(\.requestId) == ["d-1"])

            var completed = resent
            completed.stage = .completed
            completed.email = ""
            _ = try store.save(completed)
            #expect(try store.account(uid: saga.uid) == nil && store.account(email: saga.email) == nil)
            #expect(try store.updateFailures(uid: saga.uid) { $0 } == SignInFailures())
            let registration = try #require(try store.saga(saga.registrationId))
            #expect(registration.email.isEmpty && registration.name.isEmpty && registration.stage == .completed)
            #expect(try store.deletion(requestId: "d-1") == completed)
            #expect(try store.deletions(in: DeletionStage.waiting, updatedBefore: .distantFuture).isEmpty)
            // The address registers again.
            let next = sagaRecord("r-returner", email: saga.email)
            #expect(try store.start(next, account: pendingAccount(for: next)) == .started)
        }
    }
}
