import Domain
import Foundation

/// What an operator's action writes to an account (`OperatorStep`).
public enum OperatorChange: Sendable, Equatable {
    /// Nothing: the action only reads the account (or its change is the deletion saga's).
    case none
    /// Clears the failure counts and locks of passwords and codes.
    case unlock
    /// An active account becomes `disabled`, its sessions ended at the cut-off.
    case disable(endingSessionsAt: Date)
    /// A disabled account becomes `active` again.
    case enable
    /// The password is dropped (the owner sets a new one with a reset code) and the sessions ended at the cut-off.
    case dropPassword(endingSessionsAt: Date)
}

/// Accounts with what an operator does to them: each change and the ``AccountEvent`` announcing it commit together.
public protocol OperatorStore: DeletionStore {
    /// Atomically applies `change` to the account `uid` and keeps `event` in the account outbox, if the account is in a
    /// state the change applies to (`disable`: active; `enable`: disabled; `unlock`, `dropPassword`: either; `none`: any);
    /// else writes
    /// nothing and returns false.
    func apply(_ change: OperatorChange, to uid: String, announcing event: AccountEvent) throws(StoreError) -> Bool
}
