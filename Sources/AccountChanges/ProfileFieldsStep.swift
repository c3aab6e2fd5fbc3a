import Domain
import Accounts

/// The profile worker's part of the profile update saga: sets the fields of `users/<uid>` an `UpdateProfile` names
/// (forward, or back when the update is undone), idempotent. It never leaves a profile the login guard refuses: a field it
/// refuses (an empty or too long name), or a profile that would be incomplete, is `ProfileUpdateRejected`, changing
/// nothing, as is an account without a profile. A command older than the last one applied to the uid (``SagaCommand``) is
/// refused as stale.
public struct ProfileFieldsStep: EventHandler {
    public var profiles: any ProfileStore
    public var rules: RegistrationRules

    public init(profiles: any ProfileStore, rules: RegistrationRules = .init()) {
        self.profiles = profiles
        self.rules = rules
    }

    public static let routes = StepRoutes.profileFields

    public func handle(_ event: Event) throws -> [Event] {
        guard case .updateProfile(let command) = event else { unrouted(event) }
        let refusal: Failure??
        do {
            refusal = try profiles.apply(revision: command.revision, uid: command.uid) { profile -> Failure? in
                guard let stored = profile else { return Failure(.profileInvalid, "The account has no profile to update.") }
                let updated = command.fields.applied(to: stored)
                if let failure = rules.validate(name: updated.name) { return failure }
                guard updated.isComplete else { return Failure(.profileInvalid, "The profile needs a name, an email and a profile image.") }
                profile = updated
                return nil
            }
        } catch {
            guard error.kind == .permanent else { throw error }
            return [rejected(command, Failure(.profileStoreRejected, "The profile store refused the profile: \(error.message)"))]
        }
        switch refusal {
        case nil: throw UntrustedEvent.stale(event, command, than: "the profile")
        case let failure??: return [rejected(command, failure)]
        case nil?: return [.profileUpdateApplied(command)]
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
