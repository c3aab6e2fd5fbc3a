import Domain
import Foundation
import Accounts

/// The email changes' records in the account store, for `SagaEngine`: a record and its account update commit
/// together, the record taking the account's next revision. Only the account worker's step moves a change, one event
/// of its request at a time (one partition), so a save never finds the record moved by another writer.
struct EmailChangeLog: SagaLog {
    var accounts: any AccountChangeStore

    func record(_ key: String) throws(StoreError) -> AccountChangeRecord? { try accounts.change(requestId: key) }

    func save(_ record: AccountChangeRecord, applying change: AccountUpdate?) throws(StoreError) -> AccountChangeRecord? {
        try accounts.save(record, applying: change)
    }

    func waiting() throws(StoreError) -> [AccountChangeRecord] {
        try accounts.changes(in: .awaitingProfile, updatedBefore: .distantFuture)
    }

    /// Every move of a change rewrites its `updatedAt`.
    func mark(_ record: AccountChangeRecord) -> ProgressWatch.Mark {
        (record.requestId, "\(record.updatedAt.timeIntervalSince1970)", record.stage.rawValue)
    }
}
