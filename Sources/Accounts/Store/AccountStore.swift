import Domain
import Foundation

/// What happens to the account when a saga record is saved.
public enum AccountChange: Sendable, Equatable {
    case activate(uid: String)
    case delete(uid: String)
}

/// The result of starting a registration in the account store.
public enum SagaStart: Sendable, Equatable {
    /// The pending account and the saga record were inserted.
    case started
    /// A saga with this registration id exists already (a redelivered or re-published request).
    case existing(SagaRecord)
    /// Another account has this email; nothing was inserted.
    case emailTaken
}

/// Accounts and the registration sagas that create them, in one store so that a saga step and
/// its account change commit together.
public protocol AccountStore: Sendable {
    /// Atomically inserts `account` (pending) and `saga`, unless a saga with the same registration id
    /// exists or an account already has the email (any letter case; the email is normalised).
    func start(_ saga: SagaRecord, account: Account) throws(StoreError) -> SagaStart

    /// Inserts a saga that failed before creating anything, unless one with its id exists; returns what is stored.
    func recordFailed(_ saga: SagaRecord) throws(StoreError) -> SagaRecord

    /// Deletes the refusals (failed sagas that created nothing: no uid) last updated before `date`; returns how many.
    func forgetRefusals(recordedBefore date: Date) throws(StoreError) -> Int

    /// The saga with this registration id.
    func saga(_ registrationId: String) throws(StoreError) -> SagaRecord?

    /// Atomically saves `saga`, applies `change` and keeps `effects` in the side-effect outbox, if the stored version is
    /// `saga.version - 1`. Returns false (and changes and keeps nothing) when another writer moved the saga first.
    func save(_ saga: SagaRecord, applying change: AccountChange?, keeping effects: [OutboxMessage]) throws(StoreError) -> Bool

    /// Sagas in one of `stages` last updated before `date` (stuck sagas, audits).
    func sagas(in stages: Set<SagaStage>, updatedBefore date: Date) throws(StoreError) -> [SagaRecord]

    /// Applies `update` to the account `uid` (a first proof of its mailbox, outside any account change).
    func update(uid: String, applying update: AccountUpdate) throws(StoreError)

    func account(uid: String) throws(StoreError) -> Account?
    func account(email: String) throws(StoreError) -> Account?
    /// Every account (audits).
    func accounts() throws(StoreError) -> [Account]
}

extension AccountStore {
    /// Saves `saga` and applies `change`, keeping no side effect (`save(_:applying:keeping:)`).
    public func save(_ saga: SagaRecord, applying change: AccountChange?) throws(StoreError) -> Bool {
        try save(saga, applying: change, keeping: [])
    }
}
