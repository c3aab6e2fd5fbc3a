import Domain
import Registration

/// The profile worker's part of the email change saga: sets the email of `users/<uid>` (idempotent).
public struct ProfileEmailStep: EventHandler {
    public var profiles: any ProfileStore

    public init(profiles: any ProfileStore) {
        self.profiles = profiles
    }

    public static let routes = StepRoutes.profileEmail

    public func handle(_ event: Event) throws -> [Event] {
        guard case .updateProfileEmail(let command) = event else { unrouted(event) }
        guard var profile = try profiles.profile(uid: command.uid) else {
            return [.profileEmailRejected(ProfileEmailRejected(requestId: command.requestId, uid: command.uid, reason: .profileInvalid,
                                                               message: "The account has no profile to update."))]
        }
        profile.email = command.email
        do {
            try profiles.write(profile, uid: command.uid)
        } catch {
            guard error.kind == .permanent else { throw error }
            return [.profileEmailRejected(ProfileEmailRejected(requestId: command.requestId, uid: command.uid, reason: .profileStoreRejected,
                                                               message: "The profile store refused the email: \(error.message)"))]
        }
        return [.profileEmailUpdated(ProfileEmail(requestId: command.requestId, uid: command.uid, email: command.email))]
    }
}
