import Accounts
import Domain

/// The request ids on `account.requests` that a saga holds before its answer is kept: an account deletion's (its answer,
/// `AccountDeleted`, is kept when the account is gone), an email change's (kept when the profile followed or the
/// change was undone) and a profile update's (kept when it completed or was undone). Any other request under such an id — a password change forged with an id read on the topic, or a
/// message dead-lettered — is answered as that saga (``AnswerOnce/claimed``), so its one outcome is the saga's own and
/// no answer kept meanwhile can roll its last step back.
public struct SagaClaims: Sendable {
    public var accounts: any DeletionStore

    public init(accounts: any DeletionStore) {
        self.accounts = accounts
    }

    /// The events of the saga holding `request`'s id, or nil when none does (then the request is a new one).
    public func events(answering request: AnswerKey) throws -> [Event]? {
        guard request.topic == Topic.accountRequests else { return nil }
        if let deletion = try accounts.deletion(requestId: request.id) { return DeletionSaga.events(of: deletion) }
        if let change = try accounts.change(requestId: request.id) { return AccountChangeStep.events(answering: change) }
        if let update = try accounts.profileUpdate(requestId: request.id) { return ProfileUpdateSaga.events(of: update) }
        return nil
    }
}
