import Accounts
import Domain
/// The profile worker's step: writes `users/<uid>`, or refuses it; deletes it on compensation or an account's deletion. A command older than
/// the last one applied to the uid (``SagaCommand``) is refused as stale, changing nothing.
public struct ProfileStep: EventHandler {
    public var writer: ProfileWriter

    public init(profiles: any ProfileStore, rules: RegistrationRules = .init()) {
        writer = ProfileWriter(profiles: profiles, rules: rules)
    }

    public static let routes = StepRoutes.profile

    public func handle(_ event: Event) throws -> [Event] {
        switch event {
        case .writeProfile(let command):
            return [try write(command)]
        case .deleteProfile(let command):
            guard try writer.profiles.deleteProfile(uid: command.uid, revision: command.revision) else { throw UntrustedEvent.stale(event, command, than: "the profile") }
            return [.profileDeleted(ProfileDeleted(registrationId: command.registrationId, uid: command.uid))]
        case .eraseProfile(let command):
            guard try writer.profiles.deleteProfile(uid: command.uid, revision: command.revision) else { throw UntrustedEvent.stale(event, command, than: "the profile") }
            return [.profileErased(ProfileErased(requestId: command.requestId, uid: command.uid))]
        default:
            unrouted(event)
        }
    }

    /// While the profile store fails, a written profile's saga hears that the profile worker is alive and retrying.
    public func heartbeat(of event: Event) -> [Event] {
        guard case .writeProfile(let command) = event else { return [] }
        return [.profileWaiting(ProfileWaiting(registrationId: command.registrationId, uid: command.uid))]
    }

    private func write(_ command: WriteProfile) throws -> Event {
        let profile = command.profile
        let written = try writer.refusal(of: profile, checkingEmail: true).map { .failure($0) }
            ?? writer.apply(revision: command.revision, uid: command.uid) { $0 = profile }
        switch written {
        case .success(nil): throw UntrustedEvent.stale(.writeProfile(command), command, than: "the profile")
        case .success(_?): return .profileWritten(ProfileWritten(registrationId: command.registrationId, uid: command.uid))
        case .failure(let refusal):
            return .profileRejected(ProfileRejected(registrationId: command.registrationId, uid: command.uid,
                                                    reason: refusal.reason, message: refusal.message))
        }
    }
}
