import Accounts
import Domain
import Foundation

/// The profile updates' records in the account store, for `SagaEngine`. Only the account worker's step moves an update,
/// one event of its request at a time (one partition), so a save never finds the record moved by another writer.
struct ProfileUpdateLog: SagaLog {
    var accounts: any ProfileUpdateStore

    func record(_ key: String) throws(StoreError) -> ProfileUpdateRecord? { try accounts.profileUpdate(requestId: key) }

    func save(_ record: ProfileUpdateRecord, applying change: Never?) throws(StoreError) -> ProfileUpdateRecord? {
        try accounts.save(record)
    }

    func waiting() throws(StoreError) -> [ProfileUpdateRecord] {
        try accounts.profileUpdates(in: ProfileUpdateStage.waiting, updatedBefore: .distantFuture)
    }

    /// Every move of an update, its step sent again included, takes the account's next revision.
    func mark(_ record: ProfileUpdateRecord) -> ProgressWatch.Mark { (record.requestId, String(record.revision), record.stage.rawValue) }
}
