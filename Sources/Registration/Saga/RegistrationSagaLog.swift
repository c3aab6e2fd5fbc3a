import Accounts
import Domain
import Foundation

/// The registration sagas' records in the account store, for `SagaEngine`: a record and its account change
/// commit together, guarded by the record's version.
struct RegistrationSagaLog: SagaLog {
    var accounts: any AccountStore

    func record(_ key: String) throws(StoreError) -> SagaRecord? { try accounts.saga(key) }

    func save(_ record: SagaRecord, applying change: AccountChange?) throws(StoreError) -> SagaRecord? {
        try accounts.save(record, applying: change) ? record : nil
    }

    func waiting() throws(StoreError) -> [SagaRecord] {
        try accounts.sagas(in: SagaStage.waiting, updatedBefore: .distantFuture)
    }

    func mark(_ record: SagaRecord) -> ProgressWatch.Mark { (record.registrationId, String(record.version), record.stage.rawValue) }
}
