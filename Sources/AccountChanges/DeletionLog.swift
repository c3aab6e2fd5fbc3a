import Accounts
import Domain
import Foundation

/// The deletions' records in the account store, for `SagaEngine`: a record and what its stage does to the account commit
/// together. Only the account worker's step moves a deletion, one event of its request at a time (one partition), so a
/// save never finds the record moved by another writer.
struct DeletionLog: SagaLog {
    var accounts: any DeletionStore

    func record(_ key: String) throws(StoreError) -> DeletionRecord? { try accounts.deletion(requestId: key) }

    func save(_ record: DeletionRecord, applying change: Never?) throws(StoreError) -> DeletionRecord? {
        try accounts.save(record)
    }

    func waiting() throws(StoreError) -> [DeletionRecord] {
        try accounts.deletions(in: DeletionStage.waiting, updatedBefore: .distantFuture)
    }

    /// Every move of a deletion, its step sent again included, takes the account's next revision.
    func mark(_ record: DeletionRecord) -> ProgressWatch.Mark { (record.requestId, String(record.revision), record.stage.rawValue) }
}
