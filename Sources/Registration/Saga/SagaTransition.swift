import Accounts
import Domain
import Foundation

/// The pure saga logic: what a reply does to a saga, with no store or broker in sight.
///
/// Every reply either moves the saga forward (a new record, an account change, events to publish)
/// or finds the saga already past it — a redelivery — in which case the events of the current
/// stage are published again, since a crash may have lost them. A forward reply for a failed
/// saga (late or duplicated after compensation) publishes the undo of what it reports, naming only
/// the saga's own ids.
public struct SagaTransition: SagaMove, Equatable {
    public var record: SagaRecord?
    public var change: AccountChange?
    public var events: [Event]

    /// Its events, whatever the record as saved.
    public func events(after saved: SagaRecord) -> [Event] { events }

    /// The transition for `reply` on `saga`, at `date`. `reply` names the saga's own ids: one that does
    /// not (`mismatch(of:with:)`) is refused before it gets here. `seal` gives the sealed result of a saga completing.
    public static func on(_ reply: Event, saga: SagaRecord, at date: Date, sealing seal: (SagaRecord) -> String) -> SagaTransition {
        switch (reply, saga.stage) {
        case (.avatarStored(let stored), .awaitingAvatar):
            var next = saga.moved(to: .awaitingProfile, at: date)
            next.imageURL = stored.url
            return advance(next)
        case (.avatarStored, .failed):
            return undo(deleteAvatar(saga))
        case (.avatarStored, .compensating) where outcome(of: saga) != nil, (.avatarRejected, .compensating) where outcome(of: saga) != nil:
            // Late for a saga answered at its deadline: the deadline's undo follows this reply's command on the image
            // worker's partition (or the sweep sends it again, with its answer), so nothing is published again here.
            return SagaTransition(record: nil, change: nil, events: [])
        case (.avatarRejected(let rejected), .awaitingAvatar):
            let failure = Failure(rejected.reason, rejected.message)
            return advance(saga.moved(to: .failed, at: date, failure: failure), change: .delete(uid: saga.uid))
        case (.profileWritten, .awaitingProfile):
            var completed = saga.moved(to: .completed, at: date)
            completed.sealedResult = seal(completed)
            return advance(completed, change: .activate(uid: saga.uid))
        case (.profileWritten, .failed), (.profileWritten, .compensating):
            return undo(deleteProfile(saga))
        case (.profileRejected(let rejected), .awaitingProfile):
            return advance(saga.moved(to: .compensating, at: date, failure: Failure(rejected.reason, rejected.message)))
        case (.avatarDeleted, .compensating):
            var failed = advance(saga.moved(to: .failed, at: date), change: .delete(uid: saga.uid))
            // A saga answered at its deadline has its outcome: the request is answered once.
            if outcome(of: saga) != nil { failed.events = [] }
            return failed
        case (.avatarDeleted, _), (.profileDeleted, _), (.avatarWaiting, _), (.profileWaiting, _):
            // A heartbeat moves no saga: the coordinator counts it as progress of every saga at its step.
            return SagaTransition(record: nil, change: nil, events: [])
        default:
            return SagaTransition(record: nil, change: nil, events: events(of: saga))
        }
    }

    /// Why `reply` is not about `saga` (another image id or uid than the record's), or nil when its ids are the saga's.
    public static func mismatch(of reply: Event, with saga: SagaRecord) -> String? {
        let named: (field: String, value: String, expected: String)
        switch reply {
        case .avatarStored(let reply): named = ("imageId", reply.imageId, saga.imageId)
        case .avatarRejected(let reply): named = ("imageId", reply.imageId, saga.imageId)
        case .avatarDeleted(let reply): named = ("imageId", reply.imageId, saga.imageId)
        case .avatarWaiting(let reply): named = ("imageId", reply.imageId, saga.imageId)
        case .profileWritten(let reply): named = ("uid", reply.uid, saga.uid)
        case .profileRejected(let reply): named = ("uid", reply.uid, saga.uid)
        case .profileDeleted(let reply): named = ("uid", reply.uid, saga.uid)
        case .profileWaiting(let reply): named = ("uid", reply.uid, saga.uid)
        default: return nil
        }
        guard named.value != named.expected else { return nil }
        return "\(reply.type) for registration \(saga.registrationId) names \(named.field) \(named.value), not the saga's"
    }

    /// The saga made no progress for its deadline: undo what exists. A saga waiting for its avatar is answered and its
    /// account deleted at once, but it stays compensating until the image worker confirms the avatar deleted (then it
    /// fails, publishing nothing more); a compensation unanswered for the deadline is sent again, with the answer it
    /// gave. The sweep's events are published only after its records moved, so an undo (or answer) lost between the
    /// two (the worker stopped, the broker's log lost) would otherwise leave an avatar behind a saga nothing sweeps
    /// again.
    public static func expire(_ saga: SagaRecord, at date: Date) -> SagaTransition? {
        let failure = Failure(.deadlineExceeded, "The registration did not finish in time and was undone.")
        switch saga.stage {
        case .awaitingAvatar:
            // Answered now (`outcome(of:)`); the avatar may still be stored: the undo follows the command storing it.
            return advance(saga.moved(to: .compensating, at: date, failure: failure), change: .delete(uid: saga.uid))
        case .awaitingProfile:
            let compensating = saga.moved(to: .compensating, at: date, failure: failure)
            var transition = advance(compensating)
            transition.events.insert(deleteProfile(compensating), at: 0)
            return transition
        case .compensating:
            // A profile may exist once the avatar was stored: its deletion is sent again too.
            let again = saga.moved(to: .compensating, at: date)
            var transition = advance(again)
            if saga.imageURL != nil { transition.events.insert(deleteProfile(again), at: 0) }
            return transition
        case .completed, .failed:
            return nil
        }
    }

    /// What a saga stalled at its deadline asks for once more before it is undone: its profile's command (the profile
    /// worker writes the same revision alike, and answers it again). Not its avatar's: only its request carries the avatar.
    public static func retry(_ saga: SagaRecord) -> [Event] {
        saga.stage == .awaitingProfile ? events(of: saga) : []
    }

    /// What a saga in its current stage has asked for and answered (republished on redelivery and replay).
    /// A saga awaiting its avatar republishes nothing here: only its request carries the avatar. A compensating saga
    /// answered already gives its answer before its undo: the worker publishes in order, each acknowledged before the
    /// next, so an undo the image worker confirms (failing the saga, which publishes nothing more) followed its answer.
    public static func events(of saga: SagaRecord) -> [Event] {
        switch saga.stage {
        case .awaitingAvatar:
            []
        case .awaitingProfile:
            [.writeProfile(WriteProfile(registrationId: saga.registrationId, uid: saga.uid, profile: saga.profile,
                                        step: saga.stage.rawValue, revision: saga.version))]
        case .compensating:
            (outcome(of: saga).map { [$0] } ?? []) + [deleteAvatar(saga)]
        case .completed, .failed:
            outcome(of: saga).map { [$0] } ?? []
        }
    }

    /// The outcome the saga gave its request, or nil while it is to come. A compensating saga has one when the
    /// deadline passed while it awaited its avatar (the only way to compensating without the avatar's URL): it was
    /// answered then, and fails once the image worker confirms the avatar deleted.
    public static func outcome(of saga: SagaRecord) -> Event? {
        switch saga.stage {
        case .awaitingAvatar, .awaitingProfile:
            nil
        case .compensating where saga.imageURL != nil:
            nil
        case .compensating, .failed:
            .registrationFailed(RegistrationFailed(
                registrationId: saga.registrationId,
                reason: saga.failure?.reason ?? .deadlineExceeded,
                message: saga.failure?.message ?? "The registration failed."))
        case .completed:
            .registrationCompleted(RegistrationCompleted(registrationId: saga.registrationId, sealedResult: saga.sealedResult ?? ""))
        }
    }

    /// The command storing the avatar of a saga awaiting it (its first step: the account's first revision).
    public static func storeAvatar(_ saga: SagaRecord, avatar: AvatarSource?) -> Event {
        .storeAvatar(StoreAvatar(registrationId: saga.registrationId, imageId: saga.imageId, avatar: avatar,
                                 step: saga.stage.rawValue, revision: saga.version))
    }

    /// The commands undoing the saga's avatar and profile, stamped with its record as it stands: each is newer than
    /// any forward command of the saga, so the image and profile workers never let a late one bring them back.
    private static func deleteAvatar(_ saga: SagaRecord) -> Event {
        .deleteAvatar(DeleteAvatar(registrationId: saga.registrationId, imageId: saga.imageId, step: saga.stage.rawValue, revision: saga.version))
    }

    private static func deleteProfile(_ saga: SagaRecord) -> Event {
        .deleteProfile(DeleteProfile(registrationId: saga.registrationId, uid: saga.uid, step: saga.stage.rawValue, revision: saga.version))
    }

    private static func advance(_ next: SagaRecord, change: AccountChange? = nil) -> SagaTransition {
        SagaTransition(record: next, change: change, events: events(of: next))
    }

    private static func undo(_ event: Event) -> SagaTransition {
        SagaTransition(record: nil, change: nil, events: [event])
    }
}

extension SagaRecord {
    /// This record moved to `stage` at `date`, with the next version.
    func moved(to stage: SagaStage, at date: Date, failure: Failure? = nil) -> SagaRecord {
        var next = self
        next.stage = stage
        next.failure = failure ?? self.failure
        next.version += 1
        next.updatedAt = date
        return next
    }
}
