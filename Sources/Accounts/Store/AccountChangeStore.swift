import Domain
import Foundation

/// Where an account change stands. Password changes are recorded completed at once; an email
/// change waits for the profile worker.
public enum AccountChangeStage: String, Codable, Sendable, CaseIterable {
    /// The account has the new email; the profile worker is setting it on the profile.
    case awaitingProfile = "awaiting_profile"
    /// The profile did not follow in time; the profile worker is setting the old email back.
    case compensating
    /// Terminal: the change is done everywhere.
    case completed
    /// Terminal: the account is as it was.
    case failed
}

/// The account worker's record of one account change, keyed by its request id.
public struct AccountChangeRecord: Sendable, Equatable {
    public var requestId: String
    public var uid: String
    public var kind: AccountChangeKind
    public var oldEmail: String
    /// The email after the change (the old one for password changes).
    public var newEmail: String
    public var stage: AccountChangeStage
    public var failure: Failure?
    public var updatedAt: Date
    /// The account revision the command of its stage carries (``SagaCommand``); 0 for a change that sends none.
    public var revision: Int

    public init(requestId: String, uid: String, kind: AccountChangeKind, oldEmail: String, newEmail: String,
                stage: AccountChangeStage, failure: Failure? = nil, updatedAt: Date, revision: Int = 0) {
        self.requestId = requestId
        self.uid = uid
        self.kind = kind
        self.oldEmail = oldEmail
        self.newEmail = newEmail
        self.stage = stage
        self.failure = failure
        self.updatedAt = updatedAt
        self.revision = revision
    }

    /// Whether its stage sends the profile worker a command, which takes the account's next revision.
    public var sendsCommand: Bool { stage == .awaitingProfile || stage == .compensating }
}

/// The result of recording a new account change.
public enum AccountChangeStart: Sendable, Equatable {
    /// The record as stored (with the revision its command carries).
    case started(AccountChangeRecord)
    /// A change with this request id exists (a redelivered request); nothing was written.
    case existing(AccountChangeRecord)
    /// Another account has the new email; nothing was written.
    case emailTaken
    /// The account is no longer active with the password hash the change was authenticated against
    /// (``AccountUpdate/authenticatedAgainst``: an operator disabled it or reset its password meanwhile); nothing was written.
    case credentialsChanged
}

/// Accounts with their change records, in one store so that a record and its account update commit together.
public protocol AccountChangeStore: CredentialStore {
    func change(requestId: String) throws(StoreError) -> AccountChangeRecord?
    /// Atomically inserts `record` and applies `update` to the account `record.uid`; a record that sends a command
    /// takes the account's next revision as its `revision`.
    func begin(_ record: AccountChangeRecord, applying update: AccountUpdate) throws(StoreError) -> AccountChangeStart
    /// Atomically replaces the stored record, applies `update`, if any, and keeps `effects` in the side-effect outbox; a
    /// record that sends a command in a new stage takes the account's next revision as its `revision`. Returns the record
    /// as stored.
    @discardableResult
    func save(_ record: AccountChangeRecord, applying update: AccountUpdate?, keeping effects: [OutboxMessage]) throws(StoreError)
        -> AccountChangeRecord
    /// Changes in `stage` last updated before `date` (stuck sagas).
    func changes(in stage: AccountChangeStage, updatedBefore date: Date) throws(StoreError) -> [AccountChangeRecord]
    /// The changes of the account `uid`, oldest first (its export).
    func changes(uid: String) throws(StoreError) -> [AccountChangeRecord]
}

extension AccountChangeStore {
    /// Saves `record` and applies `update`, keeping no side effect (`save(_:applying:keeping:)`).
    @discardableResult
    public func save(_ record: AccountChangeRecord, applying update: AccountUpdate?) throws(StoreError) -> AccountChangeRecord {
        try save(record, applying: update, keeping: [])
    }
}
