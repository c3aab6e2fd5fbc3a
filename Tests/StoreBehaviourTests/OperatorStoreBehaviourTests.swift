import AccountChanges
import Backends
import Domain
import Foundation
import Registration
import SignIn
import SQLStores
@testable import TestSupport
import Testing

/// What every `OperatorStore` must do, checked against each implementation: an operator's change applies only to an
/// account in the state it needs, and commits with its announcement in the account outbox, or neither is written.
@Suite(.tags(.production)) struct OperatorStoreBehaviourTests {
    @Test(arguments: StoreBackend.databases)
    func eachChangeAppliesInItsStateWithItsAnnouncementOnly(backend: StoreBackend) throws {
        try backend.withNewLocation { url in
            let store = try BackendOptions.accountChangeStore(at: url)
            let outbox = try SQLOutbox.accounts(database: backend == .sqlite ? SQLiteDatabase(path: String(url.dropFirst("sqlite://".count)))
                                                    : PostgresDatabase(url: url))
            let saga = sagaRecord("r-operated", email: "operated@example.com")
            _ = try store.start(saga, account: pendingAccount(for: saga))
            let event = { (kind: AccountEvent.Kind) in AccountEvent(kind, uid: saga.uid, at: startDate, actor: "operator:ada") }
            #expect(try !store.apply(.unlock, to: saga.uid, announcing: event(.accountUnlocked)), "a pending account is not unlocked")
            #expect(try store.apply(.none, to: saga.uid, announcing: event(.accountInspected)), "but it is found")
            _ = try store.save(saga.next(.completed), applying: .activate(uid: saga.uid))
            try outbox.remove(try outbox.pending(limit: 10))

            try store.updateFailures(uid: saga.uid, of: .password) { $0 = SignInFailures(consecutive: 5, lockedUntil: startDate) }
            try store.updateFailures(uid: saga.uid, of: .code) { $0 = SignInFailures(consecutive: 6, lockedUntil: startDate) }
            #expect(try store.apply(.unlock, to: saga.uid, announcing: event(.accountUnlocked)))
            #expect(try FailureKind.allCases.allSatisfy { kind in try store.updateFailures(uid: saga.uid, of: kind) { $0 } == SignInFailures() })

            #expect(try !store.apply(.enable, to: saga.uid, announcing: event(.accountEnabled)), "an active account is not enabled")
            let cutoff = startDate.addingTimeInterval(10)
            #expect(try store.apply(.disable(endingSessionsAt: cutoff), to: saga.uid, announcing: event(.accountDisabled)))
            let disabled = try #require(try store.account(uid: saga.uid))
            #expect(disabled.status == .disabled && disabled.notBefore == cutoff)
            #expect(try !store.apply(.disable(endingSessionsAt: cutoff), to: saga.uid, announcing: event(.accountDisabled)))
            #expect(try store.apply(.dropPassword(endingSessionsAt: cutoff.addingTimeInterval(1)), to: saga.uid,
                                    announcing: event(.passwordResetForced)))
            #expect(try store.account(uid: saga.uid)?.hasPassword == false)
            #expect(try store.apply(.enable, to: saga.uid, announcing: event(.accountEnabled)))
            #expect(try store.account(uid: saga.uid)?.status == .active)

            // Exactly the changes that applied were announced, in order, each with its actor.
            let announced = try outbox.pending(limit: 10).compactMap { AccountEvent(decoding: $0.payload) }
            #expect(announced.map(\.type) == [.accountUnlocked, .accountDisabled, .passwordResetForced, .accountEnabled])
            #expect(announced.allSatisfy { $0.actor == "operator:ada" && $0.uid == saga.uid })

            // A disabled account's deletion begins too (an operator's), announced by the same commit; a second order none.
            try outbox.remove(try outbox.pending(limit: 10))
            #expect(try store.apply(.disable(endingSessionsAt: cutoff.addingTimeInterval(2)), to: saga.uid, announcing: event(.accountDisabled)))
            let deletion = DeletionRecord(requestId: "d-op", uid: saga.uid, email: saga.email, imageId: nil, stage: .erasingProfile, updatedAt: startDate)
            let ordered = event(.accountDeletionOrdered)
            guard case .started = try store.begin(deletion, endingSessionsAt: cutoff.addingTimeInterval(3), announcing: ordered) else {
                Issue.record("not begun"); return
            }
            var again = deletion
            again.requestId = "d-op-2"
            #expect(try store.begin(again, endingSessionsAt: cutoff.addingTimeInterval(4), announcing: ordered) == .notActive)
            #expect(try store.account(uid: saga.uid)?.status == .deleting)
            #expect(try !store.apply(.unlock, to: saga.uid, announcing: event(.accountUnlocked)), "a deleting account is not unlocked")
            let orders = try outbox.pending(limit: 10).compactMap { AccountEvent(decoding: $0.payload) }
            #expect(orders.map(\.type) == [.accountDisabled, .accountDeletionOrdered])
        }
    }
}
