import Backends
import Domain
import Foundation
import Registration
import SQLStores
@testable import TestSupport
import Testing

/// A request id uses one set of seals, on every implementation and across replicas: the same seals again
/// (a redelivery) are accepted, other seals under the same id are refused.
@Suite(.tags(.production)) struct SealLedgerBehaviourTests {
    @Test(arguments: StoreBackend.databases)
    func aRequestIdClaimsOneSetOfSeals(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let ledger = try BackendOptions(accounts: url, dataDirectory: "/nonexistent").sealLedger()
            let replica = try BackendOptions(accounts: url, dataDirectory: "/nonexistent").sealLedger()
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            #expect(try ledger.claim(requestId: "q-1", digest: "aa", at: now))
            #expect(try ledger.claim(requestId: "q-1", digest: "aa", at: now.addingTimeInterval(5)), "a redelivery")
            #expect(try !ledger.claim(requestId: "q-1", digest: "bb", at: now))
            #expect(try !replica.claim(requestId: "q-1", digest: "bb", at: now), "another replica knows it too")
            #expect(try replica.claim(requestId: "q-2", digest: "bb", at: now))
        }
    }

    @Test(arguments: StoreBackend.databases)
    func forgettingFreesOnlyTheClaimsBeforeTheDate(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let ledger = try BackendOptions(accounts: url, dataDirectory: "/nonexistent").sealLedger()
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            #expect(try ledger.claim(requestId: "q-old", digest: "aa", at: now))
            #expect(try ledger.claim(requestId: "q-new", digest: "aa", at: now.addingTimeInterval(100)))
            #expect(try ledger.forget(claimedBefore: now.addingTimeInterval(50)) == 1)
            #expect(try ledger.claim(requestId: "q-old", digest: "bb", at: now.addingTimeInterval(200)), "forgotten: free again")
            #expect(try !ledger.claim(requestId: "q-new", digest: "bb", at: now.addingTimeInterval(200)), "kept")
            #expect(try ledger.forget(claimedBefore: now) == 0)
        }
    }
}
