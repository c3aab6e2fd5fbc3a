import Domain
import Accounts

/// The profile worker's part of the profile update saga: sets the fields of `users/<uid>` an `UpdateProfile` names
/// (forward, or back when the update is undone), idempotent. It never leaves a profile the login guard refuses: a field it
/// refuses (an empty or too long name), or a profile that would be incomplete, is `ProfileUpdateRejected`, changing
/// nothing, as is an account without a profile. A command older than the last one applied to the uid (``SagaCommand``) is
/// refused as stale.
public struct ProfileFieldsStep: EventHandler {
    public var writer: ProfileWriter

    public init(profiles: any ProfileStore, rules: RegistrationRules = .init()) {
        writer = ProfileWriter(profiles: profiles, rules: rules)
    }

    public static let routes = StepRoutes.profileFields

    public func handle(_ event: Event) throws -> [Event] {
        guard case .updateProfile(let command) = event else { unrouted(event) }
        let applied = try writer.apply(revision: command.revision, uid: command.uid) { profile -> Failure? in
            guard let stored = profile else { return Failure(.profileInvalid, "The account has no profile to update.") }
            let updated = command.fields.applied(to: stored)
            if let failure = writer.refusal(of: updated) { return failure }
            profile = updated
            return nil
        }
        switch applied {
        case .success(nil): throw UntrustedEvent.stale(event, command, than: "the profile")
        case .success(let failure??), .failure(let failure): return [rejected(command, failure)]
        case .success(nil?): return [.profileUpdateApplied(command)]
        }
    }

    /// While the profile store fails, the update hears that the profile worker is alive and retrying.
    public func heartbeat(of event: Event) -> [Event] {
        guard case .updateProfile(let command) = event else { return [] }
        return [.profileUpdateWaiting(ProfileUpdateWaiting(requestId: command.requestId, uid: command.uid, step: command.step))]
    }

    private func rejected(_ command: ProfileFieldsUpdate, _ failure: Failure) -> Event {
        .profileUpdateRejected(ProfileUpdateRejected(requestId: command.requestId, uid: command.uid, reason: failure.reason, message: failure.message))
    }
}
