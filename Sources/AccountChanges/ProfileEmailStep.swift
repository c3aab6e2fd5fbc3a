import Domain
import Accounts

/// The profile worker's part of the email change saga: sets the email of `users/<uid>` (idempotent). A command older
/// than the last one applied to the uid (``SagaCommand``) is refused as stale, changing nothing.
public struct ProfileEmailStep: EventHandler {
    public var profiles: any ProfileStore

    public init(profiles: any ProfileStore) {
        self.profiles = profiles
    }

    public static let routes = StepRoutes.profileEmail

    public func handle(_ event: Event) throws -> [Event] {
        guard case .updateProfileEmail(let command) = event else { unrouted(event) }
        let updated: Bool?
        do {
            updated = try profiles.apply(revision: command.revision, uid: command.uid) { profile in
                guard profile != nil else { return false }
                profile?.email = command.email
                return true
            }
        } catch {
            guard error.kind == .permanent else { throw error }
            return [rejected(command, .profileStoreRejected, "The profile store refused the email: \(error.message)")]
        }
        switch updated {
        case nil: throw UntrustedEvent.stale(event, command, than: "the profile")
        case false?: return [rejected(command, .profileInvalid, "The account has no profile to update.")]
        case true?: return [.profileEmailUpdated(command)]
        }
    }

    /// While the profile store fails, the email change hears that the profile worker is alive and retrying.
    public func heartbeat(of event: Event) -> [Event] {
        guard case .updateProfileEmail(let command) = event else { return [] }
        return [.profileEmailWaiting(ProfileEmailWaiting(requestId: command.requestId, uid: command.uid))]
    }

    private func rejected(_ command: ProfileEmail, _ reason: ReasonCode, _ message: String) -> Event {
        .profileEmailRejected(ProfileEmailRejected(requestId: command.requestId, uid: command.uid, reason: reason, message: message))
    }
}
